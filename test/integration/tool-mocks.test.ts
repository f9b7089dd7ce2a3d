// Tool mocks (docs/playground-api.md, "Tool mocks"): the real studio and runtime child on a
// project whose node fetches a tool over HTTP (a local server that counts requests). A mock
// set from the recorded call answers the node instead of the network; a mocked timeout makes
// the run fail UPSTREAM_TIMEOUT, as the runtime reports a real one; an experiment's mocks
// answer each case; bad mock definitions are refused with a `detail`.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../src/shared/playground.ts';
import { copyExample, startTestStudio, waitFor, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { startTestRuntime } from './helpers/runtime.ts';
import { CONTROL_CREDENTIAL_HEADER } from '../../src/shared/breakpoints.ts';
import { MOCKS_METADATA_KEY } from '../../src/shared/mocks.ts';

const GRAPH = `
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { AgentState, type AgentContext } from 'agent-studio/sdk';

const State = Annotation.Root({ ...AgentState.spec });
type S = typeof State.State;

export function createGraph(ctx: AgentContext) {
  const lookup = async (state: S) => {
    const topic = state.request?.text ?? '';
    const r = await ctx.fetch!(ctx.env.TOOL_URL + '/lookup?topic=' + encodeURIComponent(topic), { headers: { authorization: 'Bearer tool-secret' } });
    const body = (await r.json()) as { fact: string };
    return { response: { text: 'status ' + r.status + ': ' + body.fact } };
  };
  return new StateGraph(State).addNode('respond', lookup).addEdge(START, 'respond').addEdge('respond', END);
}
`;

describe('tool mocks', () => {
  let tool: { url: string; count: () => number; close(): Promise<void> };
  let dir: string;
  let t: TestStudio;
  let session: string;

  const text = (r: RunDetail) => r.output_parts.map((p: any) => p.text ?? '').join('');
  const run = async (sessionId: string, said: string): Promise<RunDetail> => {
    const a = await t.call('POST', `/sessions/${sessionId}/runs`, { parts: [{ kind: 'text', text: said }] });
    expect(a.status).toBe(202);
    return waitForRun(t, a.body.run_id, undefined, 60_000);
  };
  const calls = async (runId: string) => (await t.call('GET', `/runs/${runId}/calls`)).body.items as Record<string, any>[];

  beforeAll(async () => {
    let n = 0;
    const server = http.createServer((req, res) => {
      n += 1;
      const topic = new URL(req.url ?? '/', 'http://x').searchParams.get('topic');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ fact: `${topic} is real` }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    tool = {
      url: `http://127.0.0.1:${port}`,
      count: () => n,
      close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))),
    };
    dir = copyExample('tool-mocks');
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), GRAPH);
    fs.writeFileSync(path.join(dir, '.env'), `TOOL_URL=${tool.url}\n`);
    t = await startTestStudio({ projectDir: dir });
    await t.studio.runtime.waitReady(60_000);
    session = (await t.call('POST', '/sessions', {})).body.session_id;
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await tool?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  let mockId: string;

  it('answers a mocked endpoint with its fixed response instead of the network, and records the call as mocked', async () => {
    const live = await run(session, 'tea');
    expect(live.status).toBe('completed');
    expect(text(live)).toBe('status 200: tea is real');
    expect(tool.count()).toBe(1);

    // "Mock this call": the recorded call's method and URL, its response edited.
    const recorded = (await calls(live.run_id)).find((c) => c.name === 'outbound.call')!;
    expect(recorded).toMatchObject({ kind: 'fetch', method: 'GET', status: 200 });
    const set = await t.call('POST', `/sessions/${session}/mocks`, {
      target: { kind: 'fetch', method: recorded.method, url: recorded.url },
      answer: { response: { status: 203, headers: { 'content-type': 'application/json' }, body: { fact: 'tea is mocked' } } },
      label: 'from the recorded call',
    });
    expect(set.status).toBe(201);
    expect(set.body.mock_id).toMatch(/^mock_[0-9a-f]{12}$/);
    mockId = set.body.mock_id;
    expect((await t.call('GET', `/sessions/${session}/mocks`)).body.items).toHaveLength(1);

    const mocked = await run(session, 'tea');
    expect(mocked.status).toBe('completed');
    expect(text(mocked)).toBe('status 203: tea is mocked');
    expect(tool.count()).toBe(1);
    const call = (await calls(mocked.run_id)).find((c) => c.name === 'outbound.call')!;
    expect(call).toMatchObject({ mocked: true, mock_id: mockId, status: 203, response_body: { fact: 'tea is mocked' } });
    expect(call.replayed).toBeUndefined();

    // A call the mock's URL does not match still goes to the network.
    const other = await run(session, 'coffee');
    expect(text(other)).toBe('status 200: coffee is real');
    expect(tool.count()).toBe(2);
  }, 120_000);

  it('fails the run UPSTREAM_TIMEOUT on a mocked timeout, with no request to the tool', async () => {
    const put = await t.call('PUT', `/sessions/${session}/mocks`, {
      mocks: [{ target: { kind: 'fetch', url: `${tool.url}/lookup*` }, node: 'respond', answer: { error: { kind: 'timeout' } } }],
    });
    expect(put.status).toBe(200);
    expect(put.body.items).toHaveLength(1);
    const before = tool.count();
    const failed = await run(session, 'tea');
    expect(failed.status).toBe('failed');
    const error = failed.output_parts.find((p: any) => p.kind === 'data') as any;
    expect(error.data).toMatchObject({ errorCode: 'UPSTREAM_TIMEOUT', errorReason: 'upstream_timeout' });
    expect(tool.count()).toBe(before);
    const call = (await calls(failed.run_id)).find((c) => c.name === 'outbound.call')!;
    expect(call).toMatchObject({ mocked: true, status: null });
    expect(call.error).toMatch(/timed out/);

    // A connection refusal maps as a real one does.
    await t.call('PUT', `/sessions/${session}/mocks`, { mocks: [{ target: { kind: 'fetch', url: '*' }, answer: { error: { kind: 'connection_refused' } } }] });
    const refused = await run(session, 'tea');
    expect((refused.output_parts.find((p: any) => p.kind === 'data') as any).data.errorCode).toBe('UPSTREAM_UNAVAILABLE');
    expect(tool.count()).toBe(before);

    // Deleting the mocks sends the call to the network again.
    const [only] = (await t.call('GET', `/sessions/${session}/mocks`)).body.items;
    const del = await t.call('DELETE', `/sessions/${session}/mocks/${only.mock_id}`);
    expect(del.status).toBe(200);
    expect(del.body.items).toEqual([]);
    expect(text(await run(session, 'tea'))).toBe('status 200: tea is real');
    expect(tool.count()).toBe(before + 1);
  }, 120_000);

  it('answers every case of an experiment created with mocks', async () => {
    fs.writeFileSync(
      path.join(dir, 'evals', 'topics.jsonl'),
      [
        { id: 'tea', input: { text: 'tea' } },
        { id: 'milk', input: { text: 'milk' } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const before = tool.count();
    const accepted = await t.call('POST', '/experiments', {
      dataset: 'topics',
      concurrency: 2,
      mocks: [{ target: { kind: 'fetch', method: 'get', url: `${tool.url}/lookup?topic=*` }, answer: { response: { body: { fact: 'from the mock' } } } }],
    });
    expect(accepted.status).toBe(202);
    const id = accepted.body.experiment_id as string;
    const done = await waitFor(async () => {
      const r = (await t.call('GET', `/experiments/${id}`)).body;
      return r.status !== 'running' ? r : null;
    }, 60_000);
    expect(done.status).toBe('completed');
    expect(tool.count()).toBe(before);
    const cases = (await t.call('GET', `/experiments/${id}/cases`)).body.items as { run_id: string }[];
    expect(cases).toHaveLength(2);
    for (const c of cases) expect(text((await t.call('GET', `/runs/${c.run_id}`)).body)).toBe('status 200: from the mock');
    const listed = (await t.call('GET', `/experiments/${id}/mocks`)).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0].target).toEqual({ kind: 'fetch', method: 'GET', url: `${tool.url}/lookup?topic=*` });
    // The session's own mocks are not the experiment's.
    expect((await t.call('GET', `/sessions/${session}/mocks`)).body.items).toEqual([]);
  }, 120_000);

  it('refuses bad mock definitions with a detail', async () => {
    const bad = async (body: unknown, status = 400) => {
      const r = await t.call('POST', `/sessions/${session}/mocks`, body);
      expect(r.status).toBe(status);
      expect(r.body.detail.error).toBe(status === 400 ? 'invalid_request' : 'not_found');
      return r.body.detail;
    };
    expect((await bad({ target: { kind: 'fetch', url: 'ftp://x' }, answer: { response: {} } })).message).toMatch(/url/);
    await bad({ target: { kind: 'mcp' }, answer: { response: {} } });
    await bad({ target: { kind: 'fetch', url: '*' }, answer: { error: { kind: 'explode' } } });
    await bad({ target: { kind: 'fetch', url: '*' }, answer: { response: { status: 99 } } });
    await bad({ target: { kind: 'shell', url: '*' }, answer: { response: {} } });
    await bad({ target: { kind: 'fetch', url: '*' } });
    const missing = await t.call('POST', '/sessions/ses_nope/mocks', { target: { kind: 'fetch', url: '*' }, answer: { response: {} } });
    expect(missing.status).toBe(404);
    expect(missing.body.detail.error).toBe('not_found');
    expect((await t.call('DELETE', `/sessions/${session}/mocks/mock_nope`)).status).toBe(404);
    expect((await t.call('PUT', `/sessions/${session}/mocks`, { mocks: 'all' })).status).toBe(400);
    expect((await t.call('GET', '/experiments/exp_nope/mocks')).status).toBe(404);
    const badExperiment = await t.call('POST', '/experiments', { dataset: 'topics', mocks: [{ target: { kind: 'fetch' } }] });
    expect(badExperiment.status).toBe(400);
    expect(badExperiment.body.detail.error).toBe('invalid_request');
  });

  it('honours the reserved mocks key only from the studio (its control credential)', async () => {
    const rt = await startTestRuntime({ projectDir: dir, env: { RUNTIME_CONTROL_TOKEN: 'tok' } });
    try {
      const plan = {
        mocks: [
          {
            mock_id: 'mock_x',
            target: { kind: 'fetch', method: '*', url: '*' },
            answer: { response: { status: 200, headers: {}, body: { fact: 'made up' } } },
          },
        ],
      };
      const sendWith = async (headers: Record<string, string>, id: string) => {
        const res = await fetch(rt.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'message/send',
            params: {
              message: { kind: 'message', messageId: id, role: 'user', parts: [{ kind: 'text', text: 'tea' }] },
              metadata: { [MOCKS_METADATA_KEY]: plan },
            },
          }),
        });
        const task = ((await res.json()) as any).result;
        return JSON.stringify(task.artifacts ?? task.status);
      };
      const before = tool.count();
      expect(await sendWith({}, 'm-none')).toContain('tea is real');
      expect(await sendWith({ [CONTROL_CREDENTIAL_HEADER]: 'not-the-token' }, 'm-wrong')).toContain('tea is real');
      expect(tool.count()).toBe(before + 2);
      expect(await sendWith({ [CONTROL_CREDENTIAL_HEADER]: 'tok' }, 'm-studio')).toContain('made up');
      expect(tool.count()).toBe(before + 2);
    } finally {
      await rt.close();
    }
  }, 90_000);
});

describe('tool mocks of MCP tools (runtime)', () => {
  it('answers an MCP tool by name with the fixed result, or fails it UPSTREAM_TIMEOUT as a timed-out call would', async () => {
    const rt = await startTestRuntime({ projectDir: path.join(import.meta.dirname, '..', 'fixtures', 'mcp-agent'), env: { RUNTIME_CONTROL_TOKEN: 'tok' } });
    try {
      const send = async (answer: unknown, id: string) => {
        const plan = { mocks: [{ mock_id: 'mock_mcp', target: { kind: 'mcp', server: 'orders', tool: 'track_parcel' }, answer }] };
        const res = await fetch(rt.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [CONTROL_CREDENTIAL_HEADER]: 'tok' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'message/send',
            params: {
              message: { kind: 'message', messageId: id, role: 'user', parts: [{ kind: 'text', text: 'ORD-23456' }] },
              metadata: { [MOCKS_METADATA_KEY]: plan },
            },
          }),
        });
        return ((await res.json()) as any).result;
      };
      const ok = await send({ response: { status: 200, headers: {}, body: { orderId: 'ORD-23456', carrier: 'Mock Post' } } }, 'mcp-ok');
      expect(ok.status.state).toBe('completed');
      expect(JSON.stringify(ok.artifacts)).toContain('Your parcel is with Mock Post.');
      const failed = await send({ error: { kind: 'timeout' } }, 'mcp-timeout');
      expect(failed.status.state).toBe('failed');
      expect(JSON.stringify(failed.status.message)).toContain('UPSTREAM_TIMEOUT');
    } finally {
      await rt.close();
    }
  }, 90_000);
});
