// Fork and re-run from a checkpoint (docs/playground-api.md, "Fork and re-run from a
// checkpoint"): through the studio on SQLite, a fork of a finished run at the checkpoint after
// `router` (the one whose next is the `skills` fan-out) continues in a new session as a real run,
// without running the nodes before it again, and the original thread stays as it was; on
// PostgreSQL, the runtime's fork endpoint and the reserved continue key, which only the
// studio's control credential may use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlHeaders } from '../../src/shared/runtime-contract.ts';
import { CONTINUE_METADATA_KEY, DEBUG_BASE } from '../../src/shared/thread-state.ts';
import { CONTROL_CREDENTIAL_HEADER } from '../../src/shared/breakpoints.ts';
import { startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { storedSpanEnds } from './helpers/spans.ts';
import { usePostgresDebugRuntime } from './helpers/debug-runtime.ts';

const TWO = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';
type Ckpt = { checkpoint_id: string; writes: Record<string, string[]>; next: string[] };

const answerData = (run: { output_parts: { kind: string; data?: Record<string, unknown> }[] }) => run.output_parts.find((p) => p.kind === 'data')?.data ?? {};

describe('fork and re-run from a checkpoint, through the Playground', () => {
  let t: TestStudio;
  let session: string;
  let origin: string;
  let afterRouter: Ckpt;
  let before: string[];
  beforeAll(async () => {
    t = await startTestStudio();
    session = (await t.call('POST', '/sessions', { title: 'orders' })).body.session_id;
    origin = (await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: TWO }] })).body.run_id;
    expect((await waitForRun(t, origin)).status).toBe('completed');
    const mine = (await t.call('GET', `/runs/${origin}/checkpoints`)).body.items as Ckpt[];
    afterRouter = mine.find((c) => c.writes.router)!;
    expect(afterRouter.next).toEqual(['skills']);
    before = ((await t.call('GET', `/sessions/${session}/checkpoints?limit=200`)).body.items as Ckpt[]).map((c) => c.checkpoint_id);
  });
  afterAll(() => t?.close());

  const fork = async (values?: Record<string, unknown>) => {
    const res = await t.call('POST', `/runs/${origin}/fork`, { checkpoint_id: afterRouter.checkpoint_id, ...(values ? { values } : {}) });
    expect(res.status).toBe(202);
    const run = await waitForRun(t, res.body.run_id);
    expect(run.status).toBe('completed');
    return run;
  };

  it('edits intents after router: the fork answers for the edit, in a new session, without guardrail or router running again', async () => {
    const run = await fork({ intents: ['order_status'] });
    expect(run.session_id).not.toBe(session);
    expect((await t.call('GET', `/sessions/${run.session_id}`)).body).toMatchObject({ title: 'Fork of orders', forked_from_run_id: origin });
    expect((await t.call('GET', `/sessions/${session}`)).body.forked_from_run_id).toBeNull();
    expect(run.fork).toEqual({
      run_id: origin,
      session_id: session,
      checkpoint_id: afterRouter.checkpoint_id,
      checkpoint_ns: '',
      node: 'router',
      patch: [{ op: 'replace', path: '/intents', value: ['order_status'] }],
    });
    expect(answerData(run).intents).toEqual(['order_status']);
    const nodes = (await storedSpanEnds(t.api, run.run_id)).map((s) => s.node);
    expect(nodes).toEqual(expect.arrayContaining(['skills', 'respond']));
    expect(nodes).not.toContain('guardrail');
    expect(nodes).not.toContain('router');
    // The original thread's checkpoints are the same.
    const after = ((await t.call('GET', `/sessions/${session}/checkpoints?limit=200`)).body.items as Ckpt[]).map((c) => c.checkpoint_id);
    expect(after).toEqual(before);
    // The fork's thread starts with the copy, then its own steps.
    const forked = (await t.call('GET', `/sessions/${run.session_id}/checkpoints?limit=200`)).body.items as (Ckpt & { source: string })[];
    expect(forked.at(-1)!.source).toBe('fork');
    expect(forked.some((c) => before.includes(c.checkpoint_id))).toBe(false);
    // Deleting the fork deletes only its own data.
    expect((await t.call('DELETE', `/sessions/${run.session_id}`)).status).toBe(204);
    expect((await t.call('GET', `/runs/${origin}`)).body.status).toBe('completed');
    expect(((await t.call('GET', `/sessions/${session}/checkpoints?limit=200`)).body.items as Ckpt[]).map((c) => c.checkpoint_id)).toEqual(before);
  });

  it('re-runs from the fan-out (no edit): skills runs again whole, with the original intents', async () => {
    const run = await fork();
    expect(run.fork?.patch).toEqual([]);
    expect(run.fork?.node).toBe('router');
    expect(answerData(run).intents).toEqual(['refund', 'order_status']);
    const nodes = (await storedSpanEnds(t.api, run.run_id)).map((s) => s.node);
    expect(nodes).toEqual(expect.arrayContaining(['skills', 'skills[refund]', 'skills[order_status]', 'respond']));
    expect(nodes.filter((n) => n === 'guardrail' || n === 'router')).toEqual([]);
  });

  it('compares a fork with its origin: the divergence is at the forked node, the nodes before it are the same', async () => {
    const edited = await fork({ intents: ['order_status'] });
    const cmp = (await t.call('GET', `/compare?left=${origin}&right=${edited.run_id}`)).body;
    expect(cmp.divergence.first).toMatchObject({ kind: 'update', node: 'router', step: 2, path: ['router'], right: null });
    expect(cmp.divergence.first.left.node).toBe('router');
    const changes = cmp.divergence.first.diff.changes as { path: string }[];
    expect(changes.length).toBeGreaterThan(0);
    expect(changes.every((c) => c.path.startsWith('/intents'))).toBe(true);
    // guardrail ran once, in the origin; the refund branch ran only there; skills and respond on both.
    expect(cmp.divergence.only_left.map((r: { node: string }) => r.node)).toEqual(['skills[refund]']);
    expect(cmp.divergence.only_right).toEqual([]);
    // A re-run from the same checkpoint diverges nowhere before the nodes that ran again.
    const again = await fork();
    const same = (await t.call('GET', `/compare?left=${origin}&right=${again.run_id}`)).body;
    expect(same.divergence.only_left).toEqual([]);
    expect(same.divergence.only_right).toEqual([]);
  });

  it('refuses a bad edit with 400 before anything runs, and creates nothing', async () => {
    const sessions = (await t.call('GET', '/sessions?limit=100')).body.items.length;
    const unknown = await t.call('POST', `/runs/${origin}/fork`, { checkpoint_id: afterRouter.checkpoint_id, values: { nope: 1 } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail.message).toMatch(/no channel 'nope'/);
    const bad = await t.call('POST', `/runs/${origin}/fork`, { checkpoint_id: afterRouter.checkpoint_id, values: { messages: [42] } });
    expect(bad.status).toBe(400);
    expect((await t.call('POST', `/runs/${origin}/fork`, { checkpoint_id: 'nope' })).status).toBe(404);
    expect((await t.call('GET', '/sessions?limit=100')).body.items.length).toBe(sessions);
  });

  it('follows the one-active-run rule: 409 while a run is active', async () => {
    const slow = (await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: 'hello' }], metadata: { scriptedDelayMs: 5000 } })).body
      .run_id as string;
    const res = await t.call('POST', `/runs/${origin}/fork`, { checkpoint_id: afterRouter.checkpoint_id });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({ error: 'active_run_conflict', active_run_id: slow });
    await t.call('DELETE', `/runs/${slow}`);
    await waitForRun(t, slow);
  });
});

describe("the runtime's fork endpoint and continue key on PostgreSQL", () => {
  const runtime = usePostgresDebugRuntime('fork');

  const rpc = async (body: unknown, headers: Record<string, string> = {}): Promise<any> =>
    (await fetch(runtime().url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })).json();
  const send = (contextId: string | undefined, text: string, metadata: Record<string, unknown> = {}) => ({
    jsonrpc: '2.0',
    id: 1,
    method: 'message/send',
    params: {
      message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', ...(contextId ? { contextId } : {}), parts: [{ kind: 'text', text }] },
      metadata,
    },
  });
  const debug = (thread: string) => `${runtime().url}${DEBUG_BASE.slice(1)}/threads/${thread}`;
  const get = async (url: string): Promise<any> => (await fetch(url, { headers: controlHeaders('tok') })).json();
  const post = async (url: string, body: unknown) =>
    fetch(url, { method: 'POST', headers: { ...controlHeaders('tok'), 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const transcript = async (thread: string) => (await get(`${runtime().url}api/v1/memory/threads/${thread}/messages`)).data.messages as { role: string }[];

  it('forks with an edit into a new thread and continues it only for the control credential; the original stays as it was', async () => {
    const first = await rpc(send(undefined, TWO));
    expect(first.result.status.state).toBe('completed');
    const thread = first.result.contextId as string;
    const items = (await get(`${debug(thread)}/checkpoints?limit=200`)).data.items as Ckpt[];
    const afterRouter = items.find((c) => c.writes.router)!;
    const originalTranscript = await transcript(thread);

    const forked = await post(`${debug(thread)}/fork`, {
      checkpoint_id: afterRouter.checkpoint_id,
      thread_id: 'fork-1',
      values: { intents: ['order_status'] },
    });
    expect(forked.status).toBe(200);
    expect(((await forked.json()) as any).data).toMatchObject({ thread_id: 'fork-1', as_node: 'router', written_by: ['router'], next: ['skills'] });
    // The conversation before the checkpoint came along: the human turn, not the answer.
    expect(await transcript('fork-1')).toEqual(originalTranscript.slice(0, 1));

    const key = { [CONTINUE_METADATA_KEY]: true };
    const refused = await rpc(send('fork-1', '(continue)', key));
    expect(refused.error).toMatchObject({ code: -32602, data: { field: `params.metadata.${CONTINUE_METADATA_KEY}` } });
    expect((await rpc(send('fork-1', '(continue)', key), { [CONTROL_CREDENTIAL_HEADER]: 'not-tok' })).error.code).toBe(-32602);

    const continued = await rpc(send('fork-1', '(continue)', key), { [CONTROL_CREDENTIAL_HEADER]: 'tok' });
    expect(continued.result.status.state).toBe('completed');
    const data = continued.result.artifacts[0].parts.find((p: { kind: string }) => p.kind === 'data').data;
    expect(data.intents).toEqual(['order_status']);
    expect((await transcript('fork-1')).map((m) => m.role)).toEqual(['human', 'ai']);

    expect(((await get(`${debug(thread)}/checkpoints?limit=200`)).data.items as Ckpt[]).map((c) => c.checkpoint_id)).toEqual(items.map((c) => c.checkpoint_id));
    expect(await transcript(thread)).toEqual(originalTranscript);

    // A fork of the fork, at a later turn's step: the conversation up to that turn comes along.
    const second = await rpc(send('fork-1', 'Where is my order ORD-12345?'));
    expect(second.result.status.state).toBe('completed');
    const later = ((await get(`${debug('fork-1')}/checkpoints?task_id=${second.result.id}`)).data.items as Ckpt[]).find((c) => c.writes.router)!;
    expect((await post(`${debug('fork-1')}/fork`, { checkpoint_id: later.checkpoint_id, thread_id: 'fork-3' })).status).toBe(200);
    expect(await transcript('fork-3')).toEqual((await transcript('fork-1')).slice(0, 3));
  });

  it('refuses an edit the state cannot take with 400 and leaves no thread behind', async () => {
    const first = await rpc(send(undefined, TWO));
    const thread = first.result.contextId as string;
    const afterRouter = ((await get(`${debug(thread)}/checkpoints`)).data.items as Ckpt[]).find((c) => c.writes.router)!;
    const bad = await post(`${debug(thread)}/fork`, { checkpoint_id: afterRouter.checkpoint_id, thread_id: 'fork-2', values: { messages: [42] } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe('INVALID_BODY');
    expect((await get(`${debug('fork-2')}/checkpoints`)).data.items).toEqual([]);
  });
});
