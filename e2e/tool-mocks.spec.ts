// Tool mocks in the run view (docs/playground-api.md, "Tool mocks"): a recorded ctx.fetch call
// gets "Mock this call", prefilled with its recorded response; the author edits the body and
// saves; the session's next run gets that answer instead of the network (the local tool
// server counts no request) and its call is marked mocked.
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PROJECT, useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

const GRAPH = `
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { AgentState, type AgentContext } from 'agent-studio/sdk';
const State = Annotation.Root({ ...AgentState.spec });
export function createGraph(ctx: AgentContext) {
  const respond = async (state: typeof State.State) => {
    const r = await ctx.fetch!(ctx.env.TOOL_URL + '/lookup?topic=' + encodeURIComponent(state.request?.text ?? ''));
    const body = (await r.json()) as { fact: string };
    return { response: { text: 'fact: ' + body.fact } };
  };
  return new StateGraph(State).addNode('respond', respond).addEdge(START, 'respond').addEdge('respond', END);
}
`;

const dir = resolve(import.meta.dirname, '..', 'test', '.tmp', `e2e-mocks-${randomUUID().slice(0, 8)}`);
mkdirSync(dir, { recursive: true });
cpSync(EXAMPLE_PROJECT, dir, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });
writeFileSync(join(dir, 'src', 'graph.ts'), GRAPH);

let requests = 0;
const server = http.createServer((req, res) => {
  requests += 1;
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ fact: 'from the network' }));
});

describe('tool mocks', () => {
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    writeFileSync(join(dir, '.env'), `TOOL_URL=http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });
  const world = useStudioWorld({ studio: { projectDir: dir } });

  it('mocks a recorded call from the run view: the next run gets the edited response, marked mocked', async () => {
    const { screenshot } = world();
    const { composer, run } = await openNewSession(world());
    await composer.typeText('tea');
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    expect(requests).toBe(1);
    const first = await run.runId();

    await run.spanRow('respond').locator('button').first().click();
    const call = run.root.getByTestId('outbound-call');
    await call.locator('summary').click();
    await call.getByTestId('mock-call').click();
    const response = call.getByTestId('mock-response');
    expect(await response.inputValue()).toContain('from the network');
    await response.fill(JSON.stringify({ status: 200, headers: { 'content-type': 'application/json' }, body: { fact: 'from the mock' } }));
    await call.getByTestId('mock-save').click();
    await call.getByTestId('mock-saved').waitFor();
    await screenshot('90-mock-this-call');

    await composer.typeText('tea');
    await composer.send();
    await run.waitForNewRun(first);
    await run.waitForStatus('completed');
    expect(requests).toBe(1);
    await expect.poll(() => run.root.textContent()).toContain('fact: from the mock');
    await run.spanRow('respond').locator('button').first().click();
    await run.root.getByTestId('call-mocked').waitFor();
    await screenshot('91-mocked-call');
  });
});
