// Recorded calls and replay (docs/playground-api.md, "Recorded calls" and "Replay";
// docs/runtime-traces.md, "Recorded calls"): the real studio and runtime child on a project
// whose fan-out branches each fetch a tool over HTTP and call the model concurrently, then
// a last node calls the model again. The model is a local server speaking the OpenAI
// chat-completions protocol that answers differently every time and counts requests, so a
// replay that answers from the recording is seen to send none.
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunDetail } from '../../src/shared/playground.ts';
import { copyExample, startTestStudio, waitFor, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

interface Counting {
  url: string;
  requests: { url: string; headers: http.IncomingHttpHeaders; body: string }[];
  close(): Promise<void>;
}

async function serve(handler: (req: http.IncomingMessage, body: string, res: http.ServerResponse, n: number) => void): Promise<Counting> {
  const requests: Counting['requests'] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', headers: req.headers, body });
      handler(req, body, res, requests.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, close: () => new Promise((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

/** OpenAI chat completions, streamed or not: `answer #n to <last message>`, with usage
 * (cached tokens included). */
function fakeModel(req: http.IncomingMessage, body: string, res: http.ServerResponse, n: number): void {
  const parsed = JSON.parse(body) as { model: string; stream?: boolean; messages: { content: string }[] };
  const last = String(parsed.messages.at(-1)?.content ?? '').slice(0, 40);
  const content = `answer #${n} to ${last}`;
  const usage = { prompt_tokens: 120, completion_tokens: 7, total_tokens: 127, prompt_tokens_details: { cached_tokens: 64 } };
  if (!parsed.stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: 'x',
        object: 'chat.completion',
        created: 0,
        model: parsed.model,
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage,
      }),
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const frame = (o: Record<string, unknown>) =>
    res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: parsed.model, ...o })}\n\n`);
  frame({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  frame({ choices: [{ index: 0, delta: { content }, finish_reason: null }] });
  frame({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  frame({ choices: [], usage });
  res.end('data: [DONE]\n\n');
}

const GRAPH = (version: string, suffix: string) => `
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { AgentState, createChatModel, fanOut, type AgentContext } from 'agent-studio/sdk';

const State = Annotation.Root({ ...AgentState.spec, notes: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }) });
type S = typeof State.State;

export function createGraph(ctx: AgentContext) {
  const model = createChatModel(ctx, () => 'offline answer');
  const research = async (state: S) => {
    const notes = await fanOut(['alpha', 'beta', 'gamma'], async (topic) => {
      const r = await ctx.fetch!(ctx.env.TOOL_URL + '/lookup?topic=' + topic + '&api_key=tool-query-secret', {
        headers: { authorization: 'Bearer tool-secret-123', 'x-topic': topic },
      });
      const fact = (await r.json()) as { fact: string };
      const a = await model.invoke([new SystemMessage('Summarise in one line.'), new HumanMessage(topic + ': ' + fact.fact)]);
      return String(a.content);
    }, { label: (t) => t });
    return { notes };
  };
  const respond = async (state: S) => {
    const a = await model.invoke([new SystemMessage('Prompt ${version}'), new HumanMessage(state.request?.text ?? ''), new HumanMessage(state.notes.join(' | '))]);
    return { response: { text: String(a.content) + '${suffix}', data: { notes: state.notes } } };
  };
  return new StateGraph(State).addNode('research', research).addNode('respond', respond)
    .addEdge(START, 'research').addEdge('research', 'respond').addEdge('respond', END);
}
`;

type Ev = { kind: string; name?: string; data?: Record<string, any> };

describe('recorded calls and replay', () => {
  let model: Counting;
  let tool: Counting;
  let dir: string;
  let t: TestStudio;

  const events = async (runId: string): Promise<Ev[]> => {
    const r = await fetch(`${t.api}/runs/${runId}/events?format=json`);
    const text = await r.text();
    try {
      const body = JSON.parse(text);
      return body.items ?? body;
    } catch {
      return text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => JSON.parse(l.slice(6)));
    }
  };
  /** Writes the graph and waits until the studio has seen the change (its fingerprint moved). */
  const writeGraph = async (text: string) => {
    const fingerprint = async () => ((await (await fetch(`${t.url}api/project`)).json()) as { fingerprint: string }).fingerprint;
    const before = await fingerprint();
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), text);
    await waitFor(async () => (await fingerprint()) !== before, 20_000, 'the studio to see the change');
  };
  const calls = async (runId: string) => (await t.call('GET', `/runs/${runId}/calls`)).body.items as Record<string, any>[];
  const run = async (p: string, body: unknown): Promise<RunDetail> => {
    const a = await t.call('POST', p, body);
    expect(a.status).toBe(202);
    return waitForRun(t, a.body.run_id, undefined, 60_000);
  };

  beforeAll(async () => {
    model = await serve(fakeModel);
    tool = await serve((req, _b, res) => {
      const topic = new URL(req.url ?? '/', 'http://x').searchParams.get('topic');
      res
        .writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'sid=tool-cookie-secret' })
        .end(JSON.stringify({ fact: `${topic} is a letter`, at: Date.now() }));
    });
    dir = copyExample('recorded-calls');
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), GRAPH('v1', ''));
    fs.writeFileSync(
      path.join(dir, '.env'),
      `OPENAI_BASE_URL=${model.url}/v1\nOPENAI_API_KEY=sk-model-secret-456\nOPENAI_MODEL=fake-gpt\nMODEL_MAX_RETRIES=0\nTOOL_URL=${tool.url}\n`,
    );
    t = await startTestStudio({ projectDir: dir });
    await t.studio.runtime.waitReady(60_000);
  }, 90_000);
  afterAll(async () => {
    await t?.close();
    await model?.close();
    await tool?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  let recorded: RunDetail;
  let recordedText: string;

  it('records each model and fetch call under its node and branch, with usage, and secrets redacted', async () => {
    const s = await t.call('POST', '/sessions', {});
    recorded = await run(`/sessions/${s.body.session_id}/runs`, { parts: [{ kind: 'text', text: 'Tell me about letters' }] });
    expect(recorded.status).toBe('completed');
    expect(model.requests).toHaveLength(4);
    expect(tool.requests).toHaveLength(3);
    recordedText = recorded.output_parts.map((p: any) => p.text ?? '').join('');
    expect(recordedText).toMatch(/^answer #4 to /);

    const list = await calls(recorded.run_id);
    const models = list.filter((c) => c.name === 'model.call');
    const fetches = list.filter((c) => c.name === 'outbound.call');
    expect(models).toHaveLength(4);
    expect(fetches).toHaveLength(3);
    // Keyed by node, branch label and index within the branch, whatever order they ran in.
    expect(models.map((c) => `${c.key.node}[${c.key.branch}]#${c.key.index}`).sort()).toEqual([
      'research[alpha]#0',
      'research[beta]#0',
      'research[gamma]#0',
      'respond[null]#0',
    ]);
    const respond = models.find((c) => c.key.node === 'respond')!;
    expect(respond.usage).toEqual({ input_tokens: 120, output_tokens: 7, cache_read_tokens: 64, cache_creation_tokens: 0 });
    expect(respond.input_messages.map((m: any) => m.role)).toEqual(['system', 'human', 'human']);
    expect(respond.output_messages[0]).toMatchObject({ role: 'ai', content: recordedText });
    expect(respond.raw_request).toMatchObject({ method: 'POST', url: `${model.url}/v1/chat/completions` });
    expect(respond.raw_request.headers.authorization).toBe('[redacted]');
    expect(respond.raw_request.body.model).toBe('fake-gpt');
    const alpha = fetches.find((c) => c.key.branch === 'alpha')!;
    expect(alpha).toMatchObject({ kind: 'fetch', method: 'GET', status: 200, key: { node: 'research', index: 0 } });
    expect(alpha.request_headers.authorization).toBe('[redacted]');
    expect(alpha.request_headers['x-topic']).toBe('alpha');
    expect(alpha.url).toContain('api_key=%5Bredacted%5D');
    expect(alpha.response_headers['set-cookie']).toBe('[redacted]');
    expect(alpha.response_body.fact).toBe('alpha is a letter');
    expect(alpha.branch_span_id).toMatch(/\/0$/);

    const everything = JSON.stringify(await events(recorded.run_id));
    for (const secret of ['sk-model-secret-456', 'tool-secret-123', 'tool-query-secret', 'tool-cookie-secret']) expect(everything).not.toContain(secret);
  }, 90_000);

  it('replays after a code change that does not touch the model: the same answers, no request to the model or the tool', async () => {
    await writeGraph(GRAPH('v1', ' (checked)'));
    const before = { model: model.requests.length, tool: tool.requests.length };
    const replayed = await run(`/runs/${recorded.run_id}/rerun`, { replay: { on_mismatch: 'error' } });
    expect(replayed.status).toBe('completed');
    expect(replayed.replay).toEqual({ from_run_id: recorded.run_id, on_mismatch: 'error' });
    expect(replayed.output_parts.map((p: any) => p.text ?? '').join('')).toBe(`${recordedText} (checked)`);
    expect({ model: model.requests.length, tool: tool.requests.length }).toEqual(before);
    // The concurrent branches got their own recorded answers back.
    const notes = (r: RunDetail) => (r.output_parts.find((p: any) => p.kind === 'data') as any)?.data?.notes;
    expect(notes(replayed)).toEqual(notes(recorded));
    const list = await calls(replayed.run_id);
    expect(list.filter((c) => c.name === 'model.call').every((c) => c.replayed === true)).toBe(true);
    expect(list.filter((c) => c.name === 'model.call').find((c) => c.key.node === 'respond')!.usage.cache_read_tokens).toBe(64);
  }, 90_000);

  it('fails a strict replay whose call no longer matches, naming the call and the difference; live sends it', async () => {
    await writeGraph(GRAPH('v2', ''));
    const before = model.requests.length;
    const strict = await run(`/runs/${recorded.run_id}/rerun`, { replay: { on_mismatch: 'error' } });
    expect(strict.status).toBe('failed');
    const error = JSON.stringify(strict.output_parts);
    expect(error).toContain('replay_mismatch');
    expect(error).toContain("model call #0 of node 'respond'");
    expect(error).toContain('Prompt v1');
    expect(error).toContain('Prompt v2');
    expect(model.requests.length).toBe(before);

    const live = await run(`/runs/${recorded.run_id}/rerun`, { replay: { on_mismatch: 'live' } });
    expect(live.status).toBe('completed');
    // The branches' calls still match and are answered; only respond's went to the model.
    expect(model.requests.length).toBe(before + 1);
    expect(live.output_parts.map((p: any) => p.text ?? '').join('')).toMatch(/^answer #\d+ to /);
  }, 90_000);

  it('replays an experiment from an earlier one: each case answered from its own recorded run, no request to the model', async () => {
    fs.writeFileSync(
      path.join(dir, 'evals', 'letters.jsonl'),
      [
        { id: 'letters', input: { text: 'Tell me about letters' } },
        { id: 'numbers', input: { text: 'And numbers?' } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const experiment = async (body: Record<string, unknown>) => {
      const accepted = await t.call('POST', '/experiments', { dataset: 'letters', concurrency: 2, ...body });
      expect(accepted.status).toBe(202);
      return waitFor(async () => {
        const r = (await t.call('GET', `/experiments/${accepted.body.experiment_id}`)).body;
        return r.status !== 'running' ? r : null;
      }, 60_000);
    };
    const caseRuns = async (id: string) =>
      Promise.all(
        ((await t.call('GET', `/experiments/${id}/cases`)).body.items as { case_id: string; run_id: string }[]).map(async (c) => ({
          case_id: c.case_id,
          run: (await t.call('GET', `/runs/${c.run_id}`)).body as RunDetail,
        })),
      );
    const base = await experiment({});
    expect(base.status).toBe('completed');
    const before = model.requests.length;
    const again = await experiment({ replay: { from_experiment_id: base.experiment_id } });
    expect(again.status).toBe('completed');
    expect(model.requests.length).toBe(before);
    const was = await caseRuns(base.experiment_id);
    const now = await caseRuns(again.experiment_id);
    for (const c of now) {
      const original = was.find((w) => w.case_id === c.case_id)!.run;
      expect(c.run.replay).toEqual({ from_run_id: original.run_id, on_mismatch: 'error' });
      expect(c.run.output_parts).toEqual(original.output_parts);
    }
    const missing = await t.call('POST', '/experiments', { dataset: 'letters', replay: { from_experiment_id: 'exp_nope' } });
    expect(missing.status).toBe(404);
  }, 120_000);

  it('replays with no API key and no model configured: the offline model is built, every call is answered', async () => {
    await t.close();
    fs.writeFileSync(path.join(dir, 'src', 'graph.ts'), GRAPH('v1', ''));
    fs.writeFileSync(path.join(dir, '.env'), `TOOL_URL=${tool.url}\n`);
    t = await startTestStudio({ projectDir: dir, dataDir: t.dataDir });
    await t.studio.runtime.waitReady(60_000);
    const before = { model: model.requests.length, tool: tool.requests.length };
    const replayed = await run(`/runs/${recorded.run_id}/rerun`, { replay: { on_mismatch: 'error' } });
    expect(replayed.status).toBe('completed');
    expect(replayed.output_parts.map((p: any) => p.text ?? '').join('')).toBe(recordedText);
    expect({ model: model.requests.length, tool: tool.requests.length }).toEqual(before);
  }, 120_000);

  it('refuses a replay from a run that does not exist', async () => {
    const r = await t.call('POST', `/runs/${recorded.run_id}/rerun`, { replay: { from_run_id: 'run_nope' } });
    expect(r.status).toBe(404);
    const bad = await t.call('POST', `/runs/${recorded.run_id}/rerun`, { replay: { on_mismatch: 'maybe' } });
    expect(bad.status).toBe(400);
  });
});
