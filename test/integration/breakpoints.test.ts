// Breakpoints and stepping (docs/playground-api.md, "Breakpoints and stepping"): a session's
// breakpoints pause its runs in the runtime child; the paused run shows where, with the state
// at that checkpoint; Step, Continue and Stop; a new message while paused is refused; the
// breakpoints and the pause survive a studio restart. The runtime honours the reserved debug
// key only with the studio's control credential. A paused run's state can be edited before it
// continues. The studio's runtime child runs on each checkpoint store, SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffJson } from '../../src/main/playground/compare/json-diff.ts';
import { DEFAULT_COMPARE_OPTIONS } from '../../src/shared/compare.ts';
import { childOn, expectCheckpointsInSchema, STORES } from './helpers/studio-child.ts';
import { CONTROL_CREDENTIAL_HEADER, RESERVED_DEBUG_KEY } from '../../src/shared/breakpoints.ts';
import fs from 'node:fs';
import path from 'node:path';
import { copyExample, explain, startTestStudio, tempDir, waitFor, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.ts';

const ORDER = 'Where is my order ORD-12345?';
const TWO = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';

async function send(t: TestStudio, session: string, text = ORDER) {
  return t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text }] });
}

describe.each(STORES)('breakpoints through the Playground (runtime child on %s)', (store) => {
  const dataDir = tempDir('studio-bp');
  const child = childOn(store, 'bp');
  let t: TestStudio;
  let session: string;
  beforeAll(async () => {
    t = await startTestStudio({ dataDir, runtimeCommand: child.runtimeCommand });
    session = (await t.call('POST', '/sessions', { title: 'bp' })).body.session_id;
  });
  afterAll(() => t?.close());

  it('sets, lists and clears a session’s breakpoints, keeping one on a node the graph does not have', async () => {
    expect((await t.call('PUT', `/sessions/${session}/breakpoints`, { node: 'router', when: 'before' })).status).toBe(200);
    expect((await t.call('PUT', `/sessions/${session}/breakpoints`, { node: 'gone', when: 'after' })).status).toBe(200);
    // `found` is null until the runtime child answers with its graph.
    const put = await waitFor(async () => {
      const got = await t.call('GET', `/sessions/${session}/breakpoints`);
      return got.body.items[0].found !== null && got;
    });
    expect(put.body.items.map((b: any) => [b.node, b.when, b.found])).toEqual([
      ['router', 'before', true],
      ['gone', 'after', false],
    ]);
    expect((await t.call('PUT', `/sessions/${session}/breakpoints`, { node: 'router', when: 'sometime' })).status).toBe(400);
    expect((await t.call('PUT', '/sessions/ses_nope/breakpoints', { node: 'router', when: 'before' })).status).toBe(404);
    const cleared = await t.call('DELETE', `/sessions/${session}/breakpoints?node=gone&when=after`);
    expect(cleared.body.items.map((b: any) => b.node)).toEqual(['router']);
  });

  it('pauses before router with the state there, refuses a new message, and survives a restart; Step then Continue', async () => {
    const created = await send(t, session);
    const paused = await waitForRun(t, created.body.run_id);
    expect([paused.status, paused.reason], explain(paused)).toEqual(['input_required', 'breakpoint']);
    const pause = (await t.call('GET', `/runs/${paused.run_id}/pause`)).body;
    expect(pause).toMatchObject({ node: 'router', when: 'before', state: 'paused' });
    const at = await t.call('GET', `/sessions/${session}/checkpoints/${pause.checkpoint_id}`);
    expect(at.body.next).toEqual(['router']);
    expect(at.body.values.intents ?? []).toEqual([]);

    const refused = await send(t, session);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatchObject({ error: 'run_paused', paused_run_id: paused.run_id });
    const specResume = await t.call('POST', `/runs/${paused.run_id}/resume`, { parts: [{ kind: 'text', text: 'go' }] });
    expect(specResume.body.detail.error).toBe('run_not_resumable');

    // A studio restart keeps the breakpoints and the pause (a paused run holds no worker).
    await t.close();
    t = await startTestStudio({ dataDir, runtimeCommand: child.runtimeCommand });
    expect((await t.call('GET', `/sessions/${session}/breakpoints`)).body.items.map((b: any) => b.node)).toEqual(['router']);
    expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body.state).toBe('paused');

    const step = await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'step' });
    expect(step.status).toBe(202);
    const stepped = await waitForRun(t, step.body.run_id);
    expect([stepped.status, stepped.reason], explain(stepped)).toEqual(['input_required', 'breakpoint']);
    const next = (await t.call('GET', `/runs/${stepped.run_id}/pause`)).body;
    expect(next).toMatchObject({ when: 'before', state: 'paused' });
    expect(next.node).not.toBe('router');
    expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body).toMatchObject({ state: 'continued', continued_by: stepped.run_id });
    const afterRouter = await t.call('GET', `/sessions/${session}/checkpoints/${next.checkpoint_id}`);
    expect(afterRouter.body.values.intents).toEqual(['order_status']);

    const cont = await t.call('POST', `/runs/${stepped.run_id}/resume`, { breakpoint: 'continue' });
    expect(cont.status).toBe(202);
    const done = await waitForRun(t, cont.body.run_id);
    expect(done.status, explain(done)).toBe('completed');
    expect(JSON.stringify(done.output_parts)).toContain('ORD-12345');
    expect((await t.call('POST', `/runs/${stepped.run_id}/resume`, { breakpoint: 'continue' })).status).toBe(409);
  });

  it('step mode pauses before the first node; Stop cancels the paused task and the session takes a new message again', async () => {
    await t.call('PUT', `/sessions/${session}/breakpoints`, { node: '*', when: 'before' });
    const paused = await waitForRun(t, (await send(t, session)).body.run_id);
    expect(paused.reason, explain(paused)).toBe('breakpoint');
    expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body).toMatchObject({ node: 'guardrail', when: 'before' });
    const stopped = await t.call('DELETE', `/runs/${paused.run_id}`);
    expect(stopped.status).toBe(200);
    expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body.state).toBe('stopped');
    expect((await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'continue' })).status).toBe(409);
    await t.call('DELETE', `/sessions/${session}/breakpoints`);
    const again = await send(t, session);
    expect(again.status).toBe(202);
    const finished = await waitForRun(t, again.body.run_id);
    expect(finished.status, explain(finished)).toBe('completed');
    // Breakpoints go with their session.
    await t.call('PUT', `/sessions/${session}/breakpoints`, { node: 'router', when: 'after' });
    expect((await t.call('DELETE', `/sessions/${session}`)).status).toBe(204);
    expect((await t.call('GET', `/sessions/${session}/breakpoints`)).status).toBe(404);
  });
});

describe.each(STORES)('a breakpoint on a fan-out branch (runtime child on %s)', (store) => {
  const child = childOn(store, 'bpfan');
  let t: TestStudio;
  afterAll(() => t?.close());

  it('pauses before the branch, steps to the next branch, and Continue completes with both', async () => {
    t = await startTestStudio({ runtimeCommand: child.runtimeCommand });
    const session = (await t.call('POST', '/sessions', { title: 'branches' })).body.session_id;
    await t.call('PUT', `/sessions/${session}/breakpoints`, { node: 'skills[refund]', when: 'before' });
    const paused = await waitForRun(t, (await send(t, session, TWO)).body.run_id);
    expect([paused.status, paused.reason], explain(paused)).toEqual(['input_required', 'breakpoint']);
    const pause = (await t.call('GET', `/runs/${paused.run_id}/pause`)).body;
    expect(pause).toMatchObject({ node: 'skills[refund]', when: 'before', state: 'paused' });
    const at = await t.call('GET', `/sessions/${session}/checkpoints/${pause.checkpoint_id}`);
    expect(at.body.values.intents).toEqual(['refund', 'order_status']);

    const step = await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'step' });
    const stepped = await waitForRun(t, step.body.run_id);
    expect((await t.call('GET', `/runs/${stepped.run_id}/pause`)).body).toMatchObject({ node: 'skills[order_status]', when: 'before' });
    const cont = await t.call('POST', `/runs/${stepped.run_id}/resume`, { breakpoint: 'continue' });
    const done = await waitForRun(t, cont.body.run_id);
    expect(done.status, explain(done)).toBe('completed');
    // Both branches ran once, after their gates.
    const answer = done.output_parts.find((p) => p.kind === 'data')!;
    expect((answer as unknown as { data: { results: { skill: string }[] } }).data.results.map((r) => r.skill)).toEqual(['refunds', 'order-status']);
  });
});

describe.each(STORES)('the state of a paused run, edited before Continue (runtime child on %s)', (store) => {
  const child = childOn(store, 'bpedit');
  let t: TestStudio;
  let session: string;
  beforeAll(async () => {
    t = await startTestStudio({ runtimeCommand: child.runtimeCommand });
    session = (await t.call('POST', '/sessions', { title: 'edit' })).body.session_id;
  });
  afterAll(() => t?.close());

  it('pauses after router with the state shown; an edit of intents goes with Continue and the answer follows it', async () => {
    await t.call('PUT', `/sessions/${session}/breakpoints`, { node: 'router', when: 'after' });
    const paused = await waitForRun(t, (await send(t, session, TWO)).body.run_id);
    expect([paused.status, paused.reason], explain(paused)).toEqual(['input_required', 'breakpoint']);
    const pause = (await t.call('GET', `/runs/${paused.run_id}/pause`)).body;
    expect(pause).toMatchObject({ node: 'router', when: 'after', state: 'paused' });
    const at = (await t.call('GET', `/sessions/${session}/checkpoints/${pause.checkpoint_id}`)).body;
    expect(at.values.intents).toEqual(['refund', 'order_status']);
    expect(at.next).toEqual(['skills']);
    const before = (await t.call('GET', `/runs/${paused.run_id}/checkpoints`)).body.items.length;

    // Refused before anything runs: a channel the state does not have (400 naming its
    // channels), a value of the wrong type (the state's schema), a value the reducer refuses.
    const unknown = await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'continue', values: { intent: ['refund'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail.error).toBe('invalid_request');
    expect(unknown.body.detail.message).toContain("no channel 'intent'");
    expect(unknown.body.detail.message).toContain('intents');
    expect(unknown.body.detail.message).toContain('messages');
    const wrongType = await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'continue', values: { intents: 'refund' } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.detail.message).toContain('/intents');
    const reducer = await t.call('POST', `/runs/${paused.run_id}/resume`, {
      breakpoint: 'continue',
      values: { messages: [{ type: 'remove', content: '', id: 'no-such-message' }] },
    });
    expect(reducer.status).toBe(400);
    expect(reducer.body.detail.message).toContain('cannot take this edit');
    expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body.state).toBe('paused');
    expect((await t.call('GET', `/runs/${paused.run_id}/checkpoints`)).body.items).toHaveLength(before);
    expect((await t.call('GET', `/sessions/${session}/runs`)).body.items).toHaveLength(1);

    const cont = await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'continue', values: { intents: ['order_status'] } });
    expect(cont.status).toBe(202);
    const done = await waitForRun(t, cont.body.run_id);
    expect(done.status, explain(done)).toBe('completed');
    const data = (done.output_parts.find((p) => p.kind === 'data') as unknown as { data: { intents: string[]; results: { skill: string }[] } }).data;
    expect(data.intents).toEqual(['order_status']);
    expect(data.results.map((r) => r.skill)).toEqual(['order-status']);
    expect(JSON.stringify(done.output_parts)).not.toContain('refund of');
    expect(done.edit).toMatchObject({
      checkpoint_id: pause.checkpoint_id,
      node: 'router',
      patch: [{ op: 'replace', path: '/intents', value: ['order_status'] }],
    });
    expect(done.edit!.edited_checkpoint_id).not.toBe(pause.checkpoint_id);
    // The edit is a checkpoint of the thread (source `update`, written as router).
    const edited = (await t.call('GET', `/sessions/${session}/checkpoints/${done.edit!.edited_checkpoint_id}`)).body;
    expect(edited).toMatchObject({ source: 'update', parent_checkpoint_id: pause.checkpoint_id, next: ['skills'] });
    expect(edited.values.intents).toEqual(['order_status']);
    expect(edited.diff.changes).toEqual([
      { op: 'replace', path: '/intents/0', old: 'refund', new: 'order_status' },
      { op: 'remove', path: '/intents/1', old: 'order_status' },
    ]);
    expect((await t.call('GET', `/runs/${paused.run_id}`)).body.edit ?? null).toBeNull();
    await expectCheckpointsInSchema(child.schema, done.context_id);
  });

  it("gives the state's schema: the channels, typed by their defaults, and no other property", async () => {
    const got = await t.call('GET', '/state-schema');
    expect(got.status).toBe(200);
    expect(got.body.source).toBe('channels');
    expect(got.body.channels).toEqual(expect.arrayContaining(['messages', 'request', 'response', 'intents', 'results']));
    expect(got.body.schema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: { intents: { type: 'array' }, results: { type: 'array' } },
    });
    expect(got.body.schema.properties.messages.items.required).toEqual(['type', 'content']);
  });

  it("answers each checkpoint's diff from its parent's values, as two separate reads would", async () => {
    const page = (await t.call('GET', `/sessions/${session}/checkpoints?limit=200`)).body.items as {
      checkpoint_id: string;
      parent_checkpoint_id: string | null;
    }[];
    expect(page.length).toBeGreaterThan(4);
    for (const c of page.slice(0, 6)) {
      const detail = (await t.call('GET', `/sessions/${session}/checkpoints/${c.checkpoint_id}`)).body;
      expect(detail).not.toHaveProperty('parent_values');
      const parentValues = c.parent_checkpoint_id ? (await t.call('GET', `/sessions/${session}/checkpoints/${c.parent_checkpoint_id}`)).body.values : {};
      expect(detail.diff).toEqual(diffJson(parentValues, detail.values, DEFAULT_COMPARE_OPTIONS));
    }
  });
});

describe('a reload before Continue', () => {
  let t: TestStudio;
  afterAll(() => t?.close());

  it('says the node the run paused before is gone, and offers Stop or a fork', async () => {
    const dir = copyExample('bp-reload');
    t = await startTestStudio({ projectDir: dir });
    const session = (await t.call('POST', '/sessions', { title: 'reload' })).body.session_id;
    await t.call('PUT', `/sessions/${session}/breakpoints`, { node: 'router', when: 'before' });
    const paused = await waitForRun(t, (await send(t, session)).body.run_id);
    expect(paused.reason, explain(paused)).toBe('breakpoint');
    // The author renames the node; the studio reloads the runtime with it.
    const graph = path.join(dir, 'src/graph.ts');
    fs.writeFileSync(graph, fs.readFileSync(graph, 'utf8').replaceAll("'router'", "'route'"));
    await waitFor(async () => (await t.call('GET', '/graph')).body?.nodes?.some((n: { id: string }) => n.id === 'route'));
    expect((await t.call('GET', `/sessions/${session}/breakpoints`)).body.items[0]).toMatchObject({ node: 'router', found: false });

    const cont = await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'continue' });
    const failed = await waitForRun(t, cont.body.run_id);
    expect(failed.status).toBe('failed');
    expect(JSON.stringify(failed.output_parts)).toContain("no longer has node 'router'");
    // The pause can still be stopped.
    expect((await t.call('DELETE', `/runs/${paused.run_id}`)).status).toBe(200);
    expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body.state).toBe('stopped');
  });
});

describe('the reserved debug key on the runtime’s A2A endpoint', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ env: { RUNTIME_CONTROL_TOKEN: 'tok', CHECKPOINT_DURABILITY: 'sync' } });
  });
  afterAll(() => rt?.close());

  const sendWith = async (headers: Record<string, string>, id: string) => {
    const res = await fetch(rt.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'message/send',
        params: {
          message: { kind: 'message', messageId: id, role: 'user', parts: [{ kind: 'text', text: ORDER }] },
          metadata: { [RESERVED_DEBUG_KEY]: { breakpoints: [{ node: 'router', when: 'before' }] } },
        },
      }),
    });
    return ((await res.json()) as any).result;
  };

  it('is ignored without the control credential, and pauses the graph with it', async () => {
    expect((await sendWith({}, 'm-none')).status.state).toBe('completed');
    expect((await sendWith({ [CONTROL_CREDENTIAL_HEADER]: 'not-the-token' }, 'm-wrong')).status.state).toBe('completed');
    const paused = await sendWith({ [CONTROL_CREDENTIAL_HEADER]: 'tok' }, 'm-studio');
    expect(paused.status.state).toBe('input-required');
    const data = paused.status.message.parts.find((p: any) => p.kind === 'data').data;
    expect(data.breakpoint).toMatchObject({ node: 'router', when: 'before' });
  });
});
