// The PostgreSQL store's group commit and thread cache (docs/decisions.md D-84, D-85), on the
// real database, two store handles on one schema standing for two replicas:
//   - a turn's checkpoint and transcript are stored once its task's settled save resolves,
//     visible to the other replica, and concurrent turns share their commits;
//   - a turn whose checkpoint cannot be stored (another agent's thread) is not acknowledged,
//     and the turns written beside it are;
//   - a replica never answers a turn's read from what it wrote itself once the other replica
//     has written the thread since;
//   - a new conversation's turn costs the database its two writes and nothing more: no read of
//     a thread just made, and its end's push notification goes in the end write (D-110);
//   - a read of a thread waits for its writes that are being committed, not only for those still
//     queued (D-116).
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import pg from 'pg';
import { HumanMessage } from '@langchain/core/messages';
import type { Task } from '@a2a-js/sdk';
import { openPostgresStore } from '../../src/main/runtime/store/postgres/store.ts';
import type { PgTaskStore } from '../../src/main/runtime/store/postgres/taskStore.ts';
import { chatGraph } from '../../src/main/runtime/store/test-support.ts';
import { ThreadOwnershipError, type MemoryStore } from '../../src/main/runtime/store/types.ts';
import { TURN_TASK_CONFIG_KEY } from '../../src/shared/thread-state.ts';
import { PgCounter } from '../../bench/pg-counter.ts';
import { dropSchema, ensurePostgres, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';
import { waitFor } from './helpers/playground-studio.ts';

type Store = Awaited<ReturnType<typeof openPostgresStore>>;

/** One turn as the runtime runs it: start record, graph (durability exit), transcript, settled save. */
async function turn(store: Store, agent: string, thread: string, text: string): Promise<void> {
  const tasks = store.taskStore();
  const task: Task = { kind: 'task', id: randomUUID(), contextId: thread, status: { state: 'submitted' }, history: [], artifacts: [] };
  await tasks.save(task);
  const graph = chatGraph(store.checkpointer(agent));
  await graph.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: thread, [TURN_TASK_CONFIG_KEY]: task.id }, durability: 'exit' });
  await store.appendTranscript(agent, thread, [{ role: 'human', content: text }], { turn: true });
  await tasks.save({ ...task, status: { state: 'completed' } });
}

const messagesOf = async (store: MemoryStore, agent: string, thread: string) => {
  const tuple = await store.checkpointer(agent).getTuple({ configurable: { thread_id: thread, checkpoint_ns: '' } });
  return ((tuple?.checkpoint.channel_values?.messages ?? []) as { content: unknown }[]).map((m) => m.content);
};

describe('PostgreSQL group commit and thread cache', () => {
  let schema = '';
  const opened: Store[] = [];
  const open = async (replica: string, dsn = TEST_DSN) => {
    const store = await openPostgresStore({ dsn, schema, replica, poolMax: 4 });
    opened.push(store);
    return store;
  };
  beforeAll(() => ensurePostgres(), 30_000);
  beforeEach(() => {
    schema = newSchema('groupcommit');
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await dropSchema(schema);
  });

  it('stores a turn with its settled save, for the other replica to read, and shares commits between concurrent turns', async () => {
    await open('b'); // migrates the schema
    const counter = new PgCounter();
    const a = await open('a', await counter.listen(TEST_DSN));
    const b = opened[0];
    const threads = Array.from({ length: 8 }, () => randomUUID());
    counter.reset();
    await Promise.all(threads.map((t) => turn(a, 'agent', t, `hello ${t}`)));
    const counts = counter.reset();
    counter.close();
    // Each turn: a start record and an end write, 16 writes in all; grouped, turns beside each
    // other share commits, so there are fewer commits than writes (how many fewer depends on
    // how the eight overlap on a busy machine: 2-8 seen).
    expect(counts.commits).toBeLessThan(2 * threads.length);
    for (const t of threads) {
      expect(await messagesOf(b, 'agent', t)).toEqual([`hello ${t}`, 'reply 1']);
      expect(await b.readTranscript(t)).toEqual([{ role: 'human', content: `hello ${t}` }]);
    }
  });

  it('does not acknowledge a turn whose checkpoint was refused, and stores the turns beside it', async () => {
    const a = await open('a');
    const theirs = randomUUID();
    expect(await a.claimThread('other-agent', theirs, '')).toBe('claimed');
    const ours = randomUUID();
    const results = await Promise.allSettled([turn(a, 'agent', theirs, 'not mine'), turn(a, 'agent', ours, 'mine')]);
    expect(results[0].status).toBe('rejected');
    expect((results[0] as PromiseRejectedResult).reason).toBeInstanceOf(ThreadOwnershipError);
    expect(results[1].status).toBe('fulfilled');
    expect(await messagesOf(a, 'agent', ours)).toEqual(['mine', 'reply 1']);
    expect(await messagesOf(a, 'other-agent', theirs)).toEqual([]);
  });

  it("writes a new conversation's turn in two statements, its push notification in the end write's commit", async () => {
    const b = await open('b');
    const counter = new PgCounter();
    const a = await open('a', await counter.listen(TEST_DSN));
    const thread = randomUUID();
    const task: Task = { kind: 'task', id: randomUUID(), contextId: thread, status: { state: 'submitted' }, history: [], artifacts: [] };
    await a.pushStore().putConfig(task.id, { id: 'hook', url: 'https://receiver.example/hook' }, 10);
    counter.reset();
    a.newThread?.('agent', thread); // as a send without a contextId, authentication off
    const tasks = a.taskStore() as PgTaskStore;
    await tasks.save(task);
    const graph = chatGraph(a.checkpointer('agent'));
    await graph.invoke({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: thread, [TURN_TASK_CONFIG_KEY]: task.id }, durability: 'exit' });
    await a.appendTranscript('agent', thread, [{ role: 'human', content: 'hi' }], { turn: true });
    const completed: Task = { ...task, status: { state: 'completed', timestamp: new Date().toISOString() } };
    expect(await tasks.saveNotifying(completed, `completed@${completed.status.timestamp}`)).toBe(1);
    const counts = counter.reset();
    counter.close();
    // The start record and the end write (a third when the checkpoint's LATER_MS ran out first
    // on a busy machine); no read, no statement of its own for the notification.
    expect(counts.reads).toBe(0);
    expect(counts.roundTrips).toBe(counts.commits);
    expect(counts.roundTrips).toBeLessThanOrEqual(3);
    const xmin = async (table: string) => (await sql<{ x: string }>(`SELECT xmin::text AS x FROM "${schema}".${table} WHERE task_id = $1`, [task.id]))[0]?.x;
    expect(await xmin('push_outbox')).toBe(await xmin('a2a_tasks'));
    expect(await messagesOf(b, 'agent', thread)).toEqual(['hi', 'reply 1']);
    expect(await b.pushStore().outbox(task.id)).toMatchObject([{ configId: 'hook', eventKey: `completed@${completed.status.timestamp}`, status: 'pending' }]);
    // Notified once: the same state saved again adds nothing.
    expect(await tasks.saveNotifying(completed, `completed@${completed.status.timestamp}`)).toBe(0);
  });

  it("reads the other replica's newer turn instead of the checkpoint it wrote itself", async () => {
    const a = await open('a');
    const b = await open('b');
    const thread = randomUUID();
    await turn(a, 'agent', thread, 'one');
    await turn(b, 'agent', thread, 'two');
    // The turn's start on A (the head read with the waiting-task lookup), then its reads.
    expect(await a.waitingTask('agent', thread)).toBeUndefined();
    expect(await messagesOf(a, 'agent', thread)).toEqual(['one', 'reply 1', 'two', 'reply 3']);
    await turn(a, 'agent', thread, 'three');
    expect(await a.waitingTask('agent', thread)).toBeUndefined();
    expect(await messagesOf(a, 'agent', thread)).toEqual(['one', 'reply 1', 'two', 'reply 3', 'three', 'reply 5']);
    expect((await b.readTranscript(thread)).map((m) => m.content)).toEqual(['one', 'two', 'three']);
  });

  it('reads a turn whose checkpoint is being committed once it is committed, not the thread as it was', async () => {
    const a = await open('a');
    const thread = randomUUID();
    // Another session holds the checkpoint tables against writes (reads go on), so the end
    // batch that carries the turn's checkpoint stays in flight until it lets go.
    const holder = new pg.Client({ connectionString: TEST_DSN });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE "${schema}".checkpoints, "${schema}".checkpoint_blobs IN SHARE ROW EXCLUSIVE MODE`);
      const graph = chatGraph(a.checkpointer('agent'));
      await graph.invoke(
        { messages: [new HumanMessage('hi')] },
        { configurable: { thread_id: thread, [TURN_TASK_CONFIG_KEY]: randomUUID() }, durability: 'exit' },
      );
      // LATER_MS (end-batch.ts) runs out: the batch leaves the queue and waits on the lock.
      const waiting = `SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND relation IN ('"${schema}".checkpoints'::regclass, '"${schema}".checkpoint_blobs'::regclass)`;
      await waitFor(async () => Number((await holder.query(waiting)).rows[0].n) > 0, 10_000, 'the end batch waiting on the lock');
      const read = messagesOf(a, 'agent', thread);
      setTimeout(() => void holder.query('COMMIT'), 300);
      expect(await read).toEqual(['hi', 'reply 1']);
    } finally {
      await holder.end();
    }
  });
});
