// The state at every step (docs/playground-api.md, "The state at every step"): the studio's
// child checkpoints each step; the Playground lists a session's checkpoints, names the run of
// each, shows one checkpoint's channels with what its step changed, and the runtime's
// debugger endpoints answer only to the studio's control token. On SQLite through the
// studio, and on PostgreSQL through a runtime of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlHeaders } from '../../src/shared/runtime-contract.ts';
import { DEBUG_BASE } from '../../src/shared/thread-state.ts';
import { startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { rawRpc, startTestRuntime } from './helpers/runtime.ts';
import { usePostgresDebugRuntime } from './helpers/debug-runtime.ts';

type Ckpt = {
  checkpoint_id: string;
  step: number;
  source: string;
  run_id: string | null;
  task_id: string | null;
  writes: Record<string, string[]>;
  next: string[];
};

const ORDER = 'Where is my order ORD-12345?';
const TWO = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';

describe('a session thread, step by step, through the Playground', () => {
  let t: TestStudio;
  let session: string;
  let runs: string[];
  let all: Ckpt[];
  beforeAll(async () => {
    t = await startTestStudio();
    session = (await t.call('POST', '/sessions', { title: 'state' })).body.session_id;
    runs = [];
    for (const text of [ORDER, TWO]) {
      const created = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text }] });
      expect(created.status).toBe(202);
      expect((await waitForRun(t, created.body.run_id)).status).toBe('completed');
      runs.push(created.body.run_id);
    }
    const page = await t.call('GET', `/sessions/${session}/checkpoints?limit=200`);
    expect(page.status).toBe(200);
    all = page.body.items;
  });
  afterAll(() => t?.close());

  it('has a checkpoint for every step of every run, newest first, each named with its run', () => {
    expect(all.every((c) => c.run_id === runs[0] || c.run_id === runs[1])).toBe(true);
    for (const runId of runs) {
      const mine = all.filter((c) => c.run_id === runId).reverse();
      // input, then one after each step: guardrail, router, skills, respond.
      expect(mine[0]!.source).toBe('input');
      expect(mine.filter((c) => c.source === 'loop').length).toBeGreaterThanOrEqual(4);
      expect(mine.map((c) => c.step)).toEqual(mine.map((_, i) => mine[0]!.step + i));
    }
    // Newest first: the second run's checkpoints before the first's.
    expect(all[0]!.run_id).toBe(runs[1]);
    expect(all.at(-1)!.run_id).toBe(runs[0]);
    expect(all.some((c) => c.writes.router?.includes('intents'))).toBe(true);
    // Each step names the node that ran in it, also one that wrote nothing.
    const ran = all.filter((c) => c.run_id === runs[1]).flatMap((c) => Object.keys(c.writes));
    expect(ran).toEqual(expect.arrayContaining(['guardrail', 'router', 'skills', 'respond']));
  });

  it('pages with next_cursor to the same list, and refuses a cursor it did not issue', async () => {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { items: Ckpt[]; next_cursor: string | null } } = await t.call(
        'GET',
        `/sessions/${session}/checkpoints?limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(4);
      ids.push(...page.body.items.map((c) => c.checkpoint_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(ids).toEqual(all.map((c) => c.checkpoint_id));
    const bad = await t.call('GET', `/sessions/${session}/checkpoints?cursor=bm9wZQ`);
    expect(bad.status).toBe(400);
    expect(bad.body.detail.error).toBe('invalid_request');
  });

  it("shows a checkpoint's channels, messages as messages, and what its step changed", async () => {
    const afterRouter = all.find((c) => c.run_id === runs[1] && c.writes.router)!;
    const res = await t.call('GET', `/sessions/${session}/checkpoints/${afterRouter.checkpoint_id}`);
    expect(res.status).toBe(200);
    expect(res.body.values.intents).toEqual(['refund', 'order_status']);
    expect(res.body.next).toEqual(['skills']);
    expect(res.body.sizes.intents).toBe(JSON.stringify(['refund', 'order_status']).length);
    const human = (res.body.values.messages as { type: string; content: unknown }[]).filter((m) => m.type === 'human');
    expect(human.at(-1)!.content).toBe(TWO);
    const changed = (res.body.diff.changes as { path: string }[]).map((c) => c.path);
    expect(changed.some((p) => p.startsWith('/intents'))).toBe(true);
    expect(changed.some((p) => p.startsWith('/messages'))).toBe(false);
  });

  it("lists one run's checkpoints oldest first", async () => {
    const res = await t.call('GET', `/runs/${runs[0]}/checkpoints`);
    expect(res.status).toBe(200);
    const ids = (res.body.items as Ckpt[]).map((c) => c.checkpoint_id);
    expect(ids).toEqual(
      all
        .filter((c) => c.run_id === runs[0])
        .map((c) => c.checkpoint_id)
        .reverse(),
    );
  });

  it('answers 404 for an unknown checkpoint, session or run', async () => {
    const ckpt = await t.call('GET', `/sessions/${session}/checkpoints/1ef00000-0000-6000-8000-000000000000`);
    expect(ckpt.status).toBe(404);
    expect(ckpt.body.detail).toMatchObject({ error: 'not_found', checkpoint_id: '1ef00000-0000-6000-8000-000000000000' });
    expect((await t.call('GET', '/sessions/ses_nope/checkpoints')).status).toBe(404);
    expect((await t.call('GET', '/runs/run_nope/checkpoints')).status).toBe(404);
  });

  it("keeps the runtime's debugger endpoints to the studio's control token", async () => {
    const rt = (await (await fetch(`${t.url}api/runtime`)).json()) as { url: string };
    const thread = (await t.call('GET', `/runs/${runs[0]}`)).body.context_id as string;
    const path = `${rt.url}${DEBUG_BASE.slice(1)}/threads/${thread}/checkpoints`;
    const none = await fetch(path);
    expect(none.status).toBe(401);
    expect(await none.json()).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
    expect((await fetch(path, { headers: controlHeaders('not-the-token') })).status).toBe(401);
  });
});

describe('the debugger endpoints of a runtime on PostgreSQL', () => {
  const runtime = usePostgresDebugRuntime('dbg');

  it('lists the checkpoints of every step stamped with their task, and one checkpoint with its state', async () => {
    const res = await rawRpc(runtime().url, {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm-1', role: 'user', parts: [{ kind: 'text', text: TWO }] } },
    });
    expect(res.result.status.state).toBe('completed');
    const base = `${runtime().url}${DEBUG_BASE.slice(1)}/threads/${res.result.contextId}/checkpoints`;
    const get = async (url: string): Promise<any> => (await fetch(url, { headers: controlHeaders('tok') })).json();
    const page = await get(base);
    expect(page.success).toBe(true);
    const items = page.data.items as Ckpt[];
    expect(items.length).toBeGreaterThanOrEqual(5);
    expect(items.every((c) => c.task_id === res.result.id)).toBe(true);
    const withRouter = items.find((c) => c.writes.router)!;
    const detail = await get(`${base}/${withRouter.checkpoint_id}`);
    expect(detail.data.values.intents).toEqual(['refund', 'order_status']);
    const missing = await fetch(`${base}/nope`, { headers: controlHeaders('tok') });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as any).error.code).toBe('CHECKPOINT_NOT_FOUND');

    // A second turn on the thread: task_id keeps to one turn's checkpoints.
    const next = await rawRpc(runtime().url, {
      jsonrpc: '2.0',
      id: 2,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm-2', role: 'user', contextId: res.result.contextId, parts: [{ kind: 'text', text: ORDER }] } },
    });
    expect(next.result.status.state).toBe('completed');
    const second = (await get(`${base}?task_id=${next.result.id}`)).data.items as Ckpt[];
    expect(second.length).toBeGreaterThanOrEqual(4);
    expect(second.every((c) => c.task_id === next.result.id)).toBe(true);
    expect((await get(`${base}?task_id=${res.result.id}`)).data.items.map((c: Ckpt) => c.checkpoint_id)).toEqual(items.map((c) => c.checkpoint_id));
    const bad = await fetch(`${base}?limit=0`, { headers: controlHeaders('tok') });
    expect(bad.status).toBe(400);
  });

  it('has no debugger endpoints without a control token', async () => {
    const plain = await startTestRuntime();
    try {
      const res = await fetch(`${plain.url}${DEBUG_BASE.slice(1)}/threads/x/checkpoints`);
      expect(res.status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});
