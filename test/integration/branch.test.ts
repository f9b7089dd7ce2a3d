// Conversation branches (docs/playground-api.md, "Conversation branches"), through the studio
// and its runtime child, on SQLite and on PostgreSQL: a three-turn conversation branched at
// turn 2 with an edited message continues on a branch whose conversation is turn 1 and the
// edited turn; the original keeps its three turns, its thread's latest state, and goes on where
// it was; deleting the branch leaves the original as it was.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TranscriptTurn } from '../../src/shared/playground.ts';
import { controlHeaders } from '../../src/shared/runtime-contract.ts';
import { DEBUG_BASE } from '../../src/shared/thread-state.ts';
import { usePostgresDebugRuntime } from './helpers/debug-runtime.ts';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { dropSchema, ensurePostgres, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';

const TURNS = ['Where is my order ORD-12345?', 'I want a refund for order ORD-12345.', 'How do I change my password?'];
const EDITED = 'Where is my order ORD-23456?';

type Ckpt = { checkpoint_id: string; source: string; values?: { messages?: { type: string; content: unknown }[] } };
const textOf = (turn: TranscriptTurn) => turn.input_parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');

function branchSuite(name: string, env: () => Record<string, string>, stored?: () => Promise<void>) {
  describe(`conversation branches (${name})`, () => {
    let t: TestStudio;
    let session: string;
    let runs: string[];
    const saved: Record<string, string | undefined> = {};

    const send = async (sessionId: string, text: string, metadata?: Record<string, unknown>) => {
      const res = await t.call('POST', `/sessions/${sessionId}/runs`, { parts: [{ kind: 'text', text }], ...(metadata ? { metadata } : {}) });
      expect(res.status).toBe(202);
      expect((await waitForRun(t, res.body.run_id)).status).toBe('completed');
      return res.body.run_id as string;
    };
    const transcript = async (sessionId: string) => (await t.call('GET', `/sessions/${sessionId}/transcript?limit=200`)).body.items as TranscriptTurn[];
    const checkpoints = async (sessionId: string) => (await t.call('GET', `/sessions/${sessionId}/checkpoints?limit=200`)).body.items as Ckpt[];
    const latestHumans = async (sessionId: string) => {
      const latest = (await checkpoints(sessionId))[0];
      const detail = (await t.call('GET', `/sessions/${sessionId}/checkpoints/${latest.checkpoint_id}`)).body as Ckpt;
      return (detail.values?.messages ?? []).filter((m) => m.type === 'human').map((m) => m.content);
    };

    beforeAll(async () => {
      for (const [k, v] of Object.entries(env())) [saved[k], process.env[k]] = [process.env[k], v];
      t = await startTestStudio();
      session = (await t.call('POST', '/sessions', { title: 'orders' })).body.session_id;
      runs = [];
      for (const [i, text] of TURNS.entries()) runs.push(await send(session, text, i === 1 ? { channel: 'email' } : undefined));
    });
    afterAll(async () => {
      await t?.close();
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    });

    it('branches at turn 2: the branch has turn 1 and the edited turn; the original is unchanged and goes on; deleting the branch leaves it intact', async () => {
      const before = await checkpoints(session);
      const res = await t.call('POST', `/runs/${runs[1]}/branch`, { parts: [{ kind: 'text', text: EDITED }] });
      expect(res.status).toBe(202);
      const edited = await waitForRun(t, res.body.run_id);
      expect(edited.status).toBe('completed');
      const branch = edited.session_id;
      expect(branch).not.toBe(session);
      // The edited turn keeps the metadata the original turn had.
      expect(edited.metadata).toEqual({ channel: 'email' });
      expect(JSON.stringify(edited.output_parts)).toContain('ORD-23456');

      // The branch is grouped under its root: not in the list, counted on the root.
      expect((await t.call('GET', `/sessions/${branch}`)).body).toMatchObject({
        title: 'Branch of orders',
        branch_of: { session_id: session, run_id: runs[1], root_session_id: session },
      });
      const listed = (await t.call('GET', '/sessions?limit=100')).body.items as { session_id: string; branch_count: number }[];
      expect(listed.map((s) => s.session_id)).not.toContain(branch);
      expect(listed.find((s) => s.session_id === session)?.branch_count).toBe(1);

      // The branch's conversation: turn 1 (shared), then the edited turn and its answer.
      const mine = await transcript(branch);
      expect(mine.map(textOf)).toEqual([TURNS[0], EDITED]);
      expect(mine.map((x) => x.session_id)).toEqual([session, branch]);
      const versions = [
        { session_id: session, run_id: runs[1] },
        { session_id: branch, run_id: edited.run_id },
      ];
      expect(mine[1].versions).toEqual(versions);
      expect(await latestHumans(branch)).toEqual([TURNS[0], EDITED]);

      // The original: its three turns (turn 2 shows its versions), the same checkpoints.
      const theirs = await transcript(session);
      expect(theirs.map(textOf)).toEqual(TURNS);
      expect(theirs[1].versions).toEqual(versions);
      expect(theirs[0].versions).toBeUndefined();
      expect((await checkpoints(session)).map((c) => c.checkpoint_id)).toEqual(before.map((c) => c.checkpoint_id));
      expect(await latestHumans(session)).toEqual(TURNS);

      // A 4th message on the original continues the original.
      const fourth = await send(session, 'Where is my order ORD-34567?');
      expect((await transcript(session)).map((x) => x.run_id)).toEqual([...runs, fourth]);
      expect(await latestHumans(session)).toEqual([...TURNS, 'Where is my order ORD-34567?']);
      // A message on the branch continues the branch.
      const next = await send(branch, 'How do I change my address?');
      expect(await latestHumans(branch)).toEqual([TURNS[0], EDITED, 'How do I change my address?']);
      expect((await transcript(branch)).map((x) => x.run_id)).toEqual([runs[0], edited.run_id, next]);

      // Deleting the branch deletes its own data only.
      expect((await t.call('DELETE', `/sessions/${branch}`)).status).toBe(204);
      expect((await t.call('GET', `/sessions/${branch}`)).status).toBe(404);
      expect((await t.call('GET', `/runs/${edited.run_id}`)).status).toBe(404);
      expect((await transcript(session)).map((x) => x.run_id)).toEqual([...runs, fourth]);
      expect((await transcript(session))[1].versions).toBeUndefined();
      expect(await latestHumans(session)).toEqual([...TURNS, 'Where is my order ORD-34567?']);
      expect((await t.call('GET', `/sessions/${session}`)).body.branch_count).toBe(0);
    });

    it('editing a branch again makes a sibling; the first turn branches into a thread of its own; deleting the root takes its branches', async () => {
      const root = (await t.call('POST', '/sessions', { title: 'root' })).body.session_id as string;
      const a = await send(root, TURNS[0]);
      await send(root, TURNS[1]);
      const first = (await t.call('POST', `/runs/${a}/branch`, { parts: [{ kind: 'text', text: EDITED }] })).body;
      const b1 = await waitForRun(t, first.run_id);
      expect(b1.status).toBe('completed');
      expect((await transcript(b1.session_id)).map(textOf)).toEqual([EDITED]);
      expect(await latestHumans(b1.session_id)).toEqual([EDITED]);
      // Branching the branch's edited turn makes a second version of the root's turn 1.
      const second = (await t.call('POST', `/runs/${b1.run_id}/branch`, { parts: [{ kind: 'text', text: 'Hello' }] })).body;
      const b2 = await waitForRun(t, second.run_id);
      expect((await t.call('GET', `/sessions/${b2.session_id}`)).body.branch_of).toEqual({ session_id: root, run_id: a, root_session_id: root });
      expect((await transcript(root))[0].versions?.map((v) => v.run_id)).toEqual([a, b1.run_id, b2.run_id]);

      expect((await t.call('DELETE', `/sessions/${root}`)).status).toBe(204);
      expect((await t.call('GET', `/sessions/${b1.session_id}`)).status).toBe(404);
      expect((await t.call('GET', `/sessions/${b2.session_id}`)).status).toBe(404);
    });

    if (stored) it('keeps the threads in the configured store', stored);

    it('refuses what it cannot branch with the documented errors, creating nothing', async () => {
      const count = async () => (await t.call('GET', '/sessions?limit=100')).body.items.length;
      const n = await count();
      expect((await t.call('POST', '/runs/run_00000000000000000000000000/branch', { parts: [{ kind: 'text', text: 'x' }] })).status).toBe(404);
      const empty = await t.call('POST', `/runs/${runs[1]}/branch`, { parts: [] });
      expect(empty.status).toBe(400);
      expect(empty.body.detail.error).toBe('invalid_request');
      expect((await t.call('POST', `/runs/${runs[1]}/branch`, { parts: [{ kind: 'text', text: 'x' }], nope: 1 })).status).toBe(400);
      expect((await t.call('POST', `/runs/${runs[1]}/branch`, '{')).status).toBe(400);
      // An answer to the agent's question is not a message to edit: the turn that asked is.
      const asked = (await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: 'I want a refund' }] })).body.run_id as string;
      expect((await waitForRun(t, asked)).status).toBe('input_required');
      const answer = (await t.call('POST', `/runs/${asked}/resume`, { parts: [{ kind: 'text', text: 'The order id is ORD-12345' }] })).body.run_id as string;
      expect((await waitForRun(t, answer)).status).toBe('completed');
      const reply = await t.call('POST', `/runs/${answer}/branch`, { parts: [{ kind: 'text', text: 'x' }] });
      expect(reply.status).toBe(400);
      expect(reply.body.detail.message).toMatch(/answers the agent's question/);
      const slow = (await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: 'hello' }], metadata: { scriptedDelayMs: 5000 } })).body
        .run_id as string;
      const busy = await t.call('POST', `/runs/${runs[1]}/branch`, { parts: [{ kind: 'text', text: 'x' }] });
      expect(busy.status).toBe(409);
      expect(busy.body.detail).toMatchObject({ error: 'active_run_conflict', active_run_id: slow });
      await t.call('DELETE', `/runs/${slow}`);
      await waitForRun(t, slow);
      expect(await count()).toBe(n);
      expect((await t.call('GET', `/sessions/${session}`)).body.branch_count).toBe(0);
    });
  });
}

branchSuite('SQLite', () => ({}));

const schema = newSchema('branch');
beforeAll(async () => ensurePostgres());
afterAll(async () => dropSchema(schema));
branchSuite(
  'PostgreSQL',
  () => ({ POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema }),
  async () => {
    const tables = await sql<{ n: string }>('SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = $1', [schema]);
    expect(Number(tables[0].n)).toBeGreaterThan(0);
  },
);

// The runtime's side of a branch: a copy of the state where a turn ended, with the
// conversation up to there, answered questions included (a resumed turn adds a human message
// without an input checkpoint of its own).
function runtimeSuite(name: string, runtime: () => { url: string }) {
  describe(`the runtime's branch copy with an answered question (${name})`, () => {
    const rpc = async (message: Record<string, unknown>): Promise<any> =>
      (
        await fetch(runtime().url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'message/send',
            params: { message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', ...message } },
          }),
        })
      ).json();
    const say = (contextId: string | undefined, text: string, taskId?: string) =>
      rpc({ ...(contextId ? { contextId } : {}), ...(taskId ? { taskId } : {}), parts: [{ kind: 'text', text }] });
    const debug = (thread: string) => `${runtime().url}${DEBUG_BASE.slice(1)}/threads/${thread}`;
    const get = async (url: string): Promise<any> => (await fetch(url, { headers: controlHeaders('tok') })).json();
    const post = async (url: string, body: unknown) =>
      fetch(url, { method: 'POST', headers: { ...controlHeaders('tok'), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const transcript = async (thread: string) =>
      (await get(`${runtime().url}api/v1/memory/threads/${thread}/messages`)).data.messages as { role: string; content: string }[];

    it('keeps the answered question and the answer in the copied transcript, for a branch and a fork', async () => {
      const first = await say(undefined, TURNS[0]);
      expect(first.result.status.state).toBe('completed');
      const thread = first.result.contextId as string;
      const asked = await say(thread, 'I want a refund');
      expect(asked.result.status.state).toBe('input-required');
      expect((await say(thread, 'The order id is ORD-12345', asked.result.id)).result.status.state).toBe('completed');
      const third = await say(thread, TURNS[2]);
      expect(third.result.status.state).toBe('completed');
      const all = await transcript(thread);
      expect(all.map((m) => m.role)).toEqual(['human', 'ai', 'human', 'ai', 'human', 'ai', 'human', 'ai']);

      // Branch at turn 3: the copy is where the answered turn ended; its conversation whole.
      const mine = (await get(`${debug(thread)}/checkpoints?limit=200&task_id=${third.result.id}`)).data.items as {
        parent_checkpoint_id: string;
        writes: Record<string, unknown>;
      }[];
      const start = mine.at(-1)!.parent_checkpoint_id;
      const branched = await post(`${debug(thread)}/fork`, { checkpoint_id: start, thread_id: `branch-${name}`, branch: true });
      expect(branched.status).toBe(200);
      expect(((await branched.json()) as any).data.next).toEqual([]);
      expect(await transcript(`branch-${name}`)).toEqual(all.slice(0, 6));
      // The branch continues with its own turn 3.
      expect((await say(`branch-${name}`, EDITED)).result.status.state).toBe('completed');
      expect((await transcript(`branch-${name}`)).map((m) => m.content).slice(0, 7)).toEqual([...all.slice(0, 6).map((m) => m.content), EDITED]);

      // A fork inside turn 3 keeps the turns before it, the answer included, and turn 3's message.
      const afterRouter = mine.find((c) => c.writes.router) as unknown as { checkpoint_id: string };
      expect((await post(`${debug(thread)}/fork`, { checkpoint_id: afterRouter.checkpoint_id, thread_id: `fork-${name}` })).status).toBe(200);
      expect(await transcript(`fork-${name}`)).toEqual(all.slice(0, 7));
      // The original thread is as it was.
      expect(await transcript(thread)).toEqual(all);
    });
  });
}

describe('on SQLite', () => {
  let rt: TestRuntime | undefined;
  beforeAll(async () => {
    rt = await startTestRuntime({ env: { RUNTIME_CONTROL_TOKEN: 'tok', CHECKPOINT_DURABILITY: 'sync' } });
  });
  afterAll(() => rt?.close());
  runtimeSuite('sqlite', () => rt!);
});

describe('on PostgreSQL', () => {
  runtimeSuite('postgres', usePostgresDebugRuntime('branchrt'));
});
