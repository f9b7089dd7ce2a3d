// Inside a run (docs/runtime-traces.md): node spans from the runtime over real HTTP, a
// failing node named with its line, and the studio receiving spans while the run streams,
// keeping what a cancelled run produced.
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRpc, REPO, spawnRuntime, startTestRuntime, type RuntimeProcess, type TestRuntime } from './helpers/runtime.ts';
import { openEvents, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { storedSpanEnds } from './helpers/spans.ts';

const INSPECT = path.join(REPO, 'test/fixtures/inspect-agent');

const send = (text: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text }], ...extra } },
});

type Ev = Record<string, any>;
const spansOf = (traces: Ev[], taskId: string) => traces.filter((t) => t.task_id === taskId && (t.name === 'span.start' || t.name === 'span.end'));
const ends = (traces: Ev[], taskId: string) => spansOf(traces, taskId).filter((t) => t.name === 'span.end');

describe('node spans on the example', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime();
  });
  afterAll(() => rt.close());

  it('one span per node in order, fan-out branches as children, each update bounded in the trace', async () => {
    const res = await rawRpc(rt.url, send('I want a refund for order ORD-12345. Where is my order ORD-23456?'));
    expect(res.result.status.state).toBe('completed');
    const spans = spansOf(rt.traces, res.result.id);
    const starts = spans.filter((s) => s.name === 'span.start');
    expect(starts.filter((s) => s.kind === 'node').map((s) => [s.node, s.step])).toEqual([
      ['guardrail', 1],
      ['router', 2],
      ['skills', 3],
      ['respond', 4],
    ]);
    const skills = starts.find((s) => s.node === 'skills')!;
    const branches = starts.filter((s) => s.kind === 'branch');
    expect(branches.map((b) => b.node).sort()).toEqual(['skills[order_status]', 'skills[refund]']);
    for (const b of branches) expect(b.parent_span_id).toBe(skills.span_id);
    // Every span ends, completed, after it started; the router's update is its intents.
    const done = ends(rt.traces, res.result.id);
    expect(done).toHaveLength(starts.length);
    expect(done.every((e) => e.status === 'completed' && typeof e.duration_ms === 'number')).toBe(true);
    expect(done.find((e) => e.node === 'router')!.update).toEqual({ intents: ['refund', 'order_status'] });
    expect(done.find((e) => e.node === 'respond')!.update.messages[0]).toMatchObject({ role: 'ai', content: expect.stringContaining('ORD-12345') });
    // The spec's events keep their names around the spans.
    const names = rt.traces.filter((t) => t.task_id === res.result.id).map((t) => t.name);
    expect(names[0]).toBe('invoke.start');
    expect(names).toContain('routing');
    expect(names.at(-1)).toBe('invoke.end');
  });

  it('an interrupt ends the asking node and branch as interrupted, with what it asked', async () => {
    const res = await rawRpc(rt.url, send('I want a refund'));
    expect(res.result.status.state).toBe('input-required');
    const done = ends(rt.traces, res.result.id);
    expect(done.find((e) => e.node === 'skills')).toMatchObject({
      status: 'interrupted',
      interrupts: [expect.objectContaining({ question: expect.any(String) })],
    });
    expect(done.find((e) => e.kind === 'branch')).toMatchObject({ node: 'skills[refund]', status: 'interrupted' });
  });

  it('NODE_SPANS=off leaves spans out and keeps every other event', async () => {
    const quiet = await startTestRuntime({ env: { NODE_SPANS: 'off' } });
    try {
      const res = await rawRpc(quiet.url, send('How do I reset my password?'));
      expect(res.result.status.state).toBe('completed');
      const names = quiet.traces.map((t) => t.name);
      expect(names).not.toContain('span.start');
      expect(names).toEqual(expect.arrayContaining(['invoke.start', 'guardrail', 'routing', 'evaluation.result', 'invoke.end']));
    } finally {
      await quiet.close();
    }
  });
});

describe('subgraphs and failures (test/fixtures/inspect-agent, the runtime in its own process)', () => {
  let rt: RuntimeProcess;
  beforeAll(async () => {
    rt = await spawnRuntime(INSPECT);
  });
  afterAll(() => rt.close());

  /** A message, and its trace read back from the runtime's log once its invoke.end is there. */
  const ask = async (text: string) => {
    const res = await rawRpc(rt.url, send(text));
    await rt.until((e) => e.task_id === res.result.id && e.name === 'invoke.end');
    return res;
  };

  it("a subgraph's nodes are spans under the node that runs it", async () => {
    const res = await ask('hello');
    expect(res.result.status.state).toBe('completed');
    const starts = spansOf(rt.traces, res.result.id).filter((s) => s.name === 'span.start');
    const inner = starts.find((s) => s.node === 'inner')!;
    expect(starts.filter((s) => s.parent_span_id === inner.span_id).map((s) => [s.node, s.step])).toEqual([
      ['lookup', 1],
      ['rank', 2],
    ]);
    expect(starts.filter((s) => !s.parent_span_id).map((s) => s.node)).toEqual(['prepare', 'inner', 'work', 'answer']);
  });

  it('a node that throws: failed with the node and its file:line, the stack only in the trace', async () => {
    const res = await ask('throw');
    expect(res.result.status.state).toBe('failed');
    const data = res.result.status.message.parts.find((p: Ev) => p.kind === 'data').data;
    expect(data).toMatchObject({
      errorCode: 'INTERNAL_ERROR',
      node: 'work',
      source: { file: 'src/graph.ts', line: 32, column: expect.any(Number) },
      errorMessage: expect.stringMatching(/^Node 'work' failed: Cannot read properties of undefined \(reading 'depth'\) \(src\/graph\.ts:32:\d+\)$/),
    });
    expect(JSON.stringify(res)).not.toMatch(/\n\s+at |node_modules/);
    const span = ends(rt.traces, res.result.id).find((e) => e.node === 'work')!;
    expect(span).toMatchObject({ status: 'failed', error: { source: { file: 'src/graph.ts', line: 32 } } });
    expect(span.stack).toMatch(/graph\.ts/);
    const end = rt.traces.find((t) => t.task_id === res.result.id && t.name === 'invoke.end')!;
    expect(end).toMatchObject({ state: 'failed', node: 'work', source: { line: 32 } });
  });

  it('a failing fan-out branch is the failed span; the node fails with its line', async () => {
    const res = await ask('branch');
    const data = res.result.status.message.parts.find((p: Ev) => p.kind === 'data').data;
    expect(data).toMatchObject({
      node: 'work',
      source: { file: 'src/graph.ts', line: 36 },
      errorMessage: expect.stringContaining('branch b cannot be scored'),
    });
    const failedBranch = ends(rt.traces, res.result.id).find((e) => e.node === 'work[b]')!;
    expect(failedBranch).toMatchObject({ kind: 'branch', status: 'failed', error: { message: 'RangeError: branch b cannot be scored' } });
  });

  it('an exit node without an answer says how to give one', async () => {
    const res = await ask('empty');
    const data = res.result.status.message.parts.find((p: Ev) => p.kind === 'data').data;
    expect(data).toMatchObject({ errorReason: 'empty_response', node: 'answer', errorMessage: expect.stringMatching(/response.*AI message/) });
  });
});

describe('the studio sees spans as they happen', () => {
  let t: TestStudio;
  beforeAll(async () => {
    t = await startTestStudio();
    await t.studio.runtime.waitReady(60_000);
  });
  afterAll(() => t.close());

  const SLOW = { parts: [{ kind: 'text', text: 'I want a refund for order ORD-12345' }], metadata: { scriptedDelayMs: 40, scriptedChunks: 40 } };

  it('spans arrive while the run is running, before its terminal event', async () => {
    const s = (await t.call('POST', '/sessions', {})).body.session_id;
    const runId = (await t.call('POST', `/sessions/${s}/runs`, SLOW)).body.run_id;
    const stream = openEvents(t.api, runId);
    const routerEnd = await stream.next((m) => m.data.kind === 'trace' && (m.data as Ev).name === 'span.end' && (m.data as Ev).data.node === 'router');
    // The run is still streaming its answer when the router's span has arrived.
    expect((await t.call('GET', `/runs/${runId}`)).body.status).toBe('running');
    await stream.ended;
    const terminal = stream.messages.findIndex((m) => m.data.kind === 'run.status' && m.data.status === 'completed');
    expect(stream.messages.indexOf(routerEnd)).toBeLessThan(terminal);
    expect(stream.messages.filter((m) => m.data.kind === 'trace' && (m.data as Ev).name === 'span.start')).toHaveLength(5);
  });

  it('a cancelled run keeps its partial text, marked partial, and the spans up to the cancel', async () => {
    const s = (await t.call('POST', '/sessions', {})).body.session_id;
    const runId = (await t.call('POST', `/sessions/${s}/runs`, SLOW)).body.run_id;
    const stream = openEvents(t.api, runId);
    await stream.next((m) => m.data.kind === 'output.delta');
    await stream.next((m) => m.data.kind === 'output.delta' && m.data.seq > 0);
    expect((await t.call('DELETE', `/runs/${runId}`)).status).toBe(200);
    await stream.ended;
    const run = await waitForRun(t, runId);
    expect(run.status).toBe('cancelled');
    const partial = run.output_parts.find((p: Ev) => p.kind === 'text') as Ev;
    expect(partial).toMatchObject({ partial: true, text: expect.any(String) });
    expect(partial.text.length).toBeGreaterThan(0);
    const started = stream.messages.filter((m) => m.data.kind === 'trace' && (m.data as Ev).name === 'span.start').map((m) => (m.data as Ev).data.node);
    expect(started).toEqual(expect.arrayContaining(['guardrail', 'router', 'skills', 'respond']));
    // Every span ended: the one the cancel cut off as cancelled, in the stored events.
    const ends = await storedSpanEnds(t.api, runId);
    expect(ends.find((e) => e.node === 'respond')).toMatchObject({ status: 'cancelled' });
    for (const e of ends) expect(['completed', 'cancelled']).toContain(e.status);
  });

  it('a slow run cancelled before its answer (scriptedDelayMs 2000): every span.start has its span.end, cancelled', async () => {
    const s = (await t.call('POST', '/sessions', {})).body.session_id;
    const body = { parts: [{ kind: 'text', text: 'I want a refund for order ORD-12345' }], metadata: { scriptedDelayMs: 2000 } };
    const runId = (await t.call('POST', `/sessions/${s}/runs`, body)).body.run_id;
    const stream = openEvents(t.api, runId);
    await stream.next((m) => m.data.kind === 'trace' && (m.data as Ev).name === 'span.start' && (m.data as Ev).data.node === 'respond');
    expect((await t.call('DELETE', `/runs/${runId}`)).status).toBe(200);
    await stream.ended;
    expect((await waitForRun(t, runId)).status).toBe('cancelled');
    const ends = await storedSpanEnds(t.api, runId);
    expect(ends.filter((e) => e.status !== 'completed')).toEqual([{ node: 'respond', status: 'cancelled', closedBy: 'studio' }]);
  });
});
