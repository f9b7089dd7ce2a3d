// The memory store's behaviour on both backends, one suite (docs/deployment.md): thread ownership and
// isolation between agents (spec 2.4, 5.3), the delete / migrate operations behind the
// management API (spec 4.2), persistent memory, and the durable A2A task store. SQLite on a
// temp file; PostgreSQL (this machine's, started if down) in a fresh schema per test.
// Backend-specific behaviour stays beside each backend (src/main/runtime/store/sqlite.test.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { BaseMessage } from '@langchain/core/messages';
import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { openSqliteStore } from '../../src/main/runtime/store/sqlite.ts';
import { openPostgresStore } from '../../src/main/runtime/store/postgres/store.ts';
import { cfg, chatGraph, say } from '../../src/main/runtime/store/test-support.ts';
import { ThreadOwnershipError, type DeletedCounts, type MemoryStore } from '../../src/main/runtime/store/types.ts';
import { dropSchema, ensurePostgres, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';

interface Backend {
  name: 'sqlite' | 'postgres';
  /** Called before each test: a fresh, empty database. */
  setup(): Promise<void>;
  /** A handle on the test's database (several may be open at once). */
  open(): Promise<MemoryStore>;
  /** Row counts of a set of threads, read from the database directly. */
  countRows(threads: string[]): Promise<DeletedCounts>;
  teardown(): Promise<void>;
}

const FAMILIES = ['checkpoints', 'checkpoint_blobs', 'checkpoint_writes', 'persistent_memory'] as const;

function sqliteBackend(): Backend {
  let dir = '';
  const file = () => path.join(dir, 'memory.sqlite');
  return {
    name: 'sqlite',
    async setup() {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'memstore-'));
    },
    async open() {
      return openSqliteStore(file());
    },
    async countRows(threads) {
      const db = new Database(file(), { readonly: true });
      try {
        const marks = threads.map(() => '?').join(',');
        const count = (table: string) =>
          db
            .prepare(`SELECT count(*) FROM ${table} WHERE thread_id IN (${marks})`)
            .pluck()
            .get(...threads) as number;
        return Object.fromEntries(FAMILIES.map((t) => [t, count(t)])) as unknown as DeletedCounts;
      } finally {
        db.close();
      }
    },
    async teardown() {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresBackend(): Backend {
  let schema = '';
  return {
    name: 'postgres',
    async setup() {
      await ensurePostgres();
      schema = newSchema('store');
    },
    async open() {
      return openPostgresStore({ dsn: TEST_DSN, schema, replica: 'test' });
    },
    async countRows(threads) {
      const out: Record<string, number> = {};
      for (const t of FAMILIES)
        out[t] = Number((await sql<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".${t} WHERE thread_id = ANY($1)`, [threads]))[0].n);
      return out as unknown as DeletedCounts;
    },
    async teardown() {
      await dropSchema(schema);
    },
  };
}

describe.each([sqliteBackend(), postgresBackend()])('memory store on $name', (backend) => {
  const opened: MemoryStore[] = [];
  const open = async () => {
    const store = await backend.open();
    opened.push(store);
    return store;
  };
  const countRows = (threads: string[]) => backend.countRows(threads);
  beforeAll(() => ensurePostgres(), 30_000);
  beforeEach(() => backend.setup());
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await backend.teardown();
  });

  describe('thread ownership', () => {
    it('isolates agents: put/putWrites refused, getTuple/list see nothing, listThreads per agent', async () => {
      const store = await open();
      const a = store.checkpointer('a');
      const b = store.checkpointer('b');
      await say(chatGraph(a), 'shared', 'hello from a');
      expect(await store.threadOwner('shared')).toBe('a');
      expect(await store.threadOwner('nobody')).toBeNull();

      const ownTuple = await a.getTuple(cfg('shared'));
      expect(ownTuple).toBeDefined();
      const c = emptyCheckpoint();
      const err = await b.put(cfg('shared'), c, { source: 'input', step: -1, parents: {} }, {}).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ThreadOwnershipError);
      expect(err).toMatchObject({ threadId: 'shared', ownerAgentId: 'a', callerAgentId: 'b' });
      await expect(b.putWrites(ownTuple!.config, [['messages', []]], 'task')).rejects.toBeInstanceOf(ThreadOwnershipError);
      // A graph of agent b on a's thread: reading sees an empty thread, writing is refused.
      await expect(say(chatGraph(b), 'shared', 'hello from b')).rejects.toBeInstanceOf(ThreadOwnershipError);

      expect(await b.getTuple(cfg('shared'))).toBeUndefined();
      expect(await b.getTuple(ownTuple!.config)).toBeUndefined();
      const listed: unknown[] = [];
      for await (const t of b.list(cfg('shared'))) listed.push(t);
      for await (const t of b.list({ configurable: {} })) listed.push(t);
      expect(listed).toEqual([]);
      // a's thread is untouched by b's attempts.
      const state = await chatGraph(a).getState(cfg('shared'));
      expect((state.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['hello from a', 'reply 1']);

      await say(chatGraph(b), 'b-1', 'mine');
      await say(chatGraph(a), 'a-2', 'second');
      expect(await store.listThreads('a')).toEqual(['shared', 'a-2']);
      expect(await store.listThreads('b')).toEqual(['b-1']);
      expect(await store.listThreads('c')).toEqual([]);
    });

    it('persistent memory: upsert per (agent, thread, key), claims unknown threads, refuses foreign ones', async () => {
      const store = await open();
      expect(await store.getMemory('a', 't', 'summary')).toBeUndefined();
      await store.putMemory('a', 't', 'summary', { text: 'v1', n: 1 });
      await store.putMemory('a', 't', 'summary', { text: 'v2', n: [1, 2] });
      await store.putMemory('a', 't', 'other', 'plain string');
      expect(await store.getMemory('a', 't', 'summary')).toEqual({ text: 'v2', n: [1, 2] });
      expect(await store.getMemory('a', 't', 'other')).toBe('plain string');
      expect(await store.threadOwner('t')).toBe('a');
      expect(await store.getMemory('b', 't', 'summary')).toBeUndefined();
      await expect(store.putMemory('b', 't', 'summary', {})).rejects.toBeInstanceOf(ThreadOwnershipError);
      await expect(store.putMemory('a', 't', 'bad', undefined)).rejects.toThrow(TypeError);
    });

    it('deleteThread deletes every row family of one thread and returns the counts', async () => {
      const store = await open();
      const graph = chatGraph(store.checkpointer('a'));
      await say(graph, 't1', 'one');
      await say(graph, 't1', 'two');
      await say(graph, 't2', 'keep');
      await store.putMemory('a', 't1', 'summary', { text: 's' });
      const expected = await countRows(['t1']);
      expect(expected.checkpoints).toBeGreaterThan(0);
      expect(expected.checkpoint_blobs).toBeGreaterThan(0);
      expect(expected.checkpoint_writes).toBeGreaterThan(0);
      expect(expected.persistent_memory).toBe(1);

      expect(await store.deleteThread('t1')).toEqual(expected);
      expect(await countRows(['t1'])).toEqual({ checkpoints: 0, checkpoint_blobs: 0, checkpoint_writes: 0, persistent_memory: 0 });
      expect(await store.threadOwner('t1')).toBeNull();
      expect(await store.listThreads('a')).toEqual(['t2']);
      expect(await store.deleteThread('t1')).toEqual({ checkpoints: 0, checkpoint_blobs: 0, checkpoint_writes: 0, persistent_memory: 0 });
      // The id is free again: any agent may start a new thread with it.
      await say(chatGraph(store.checkpointer('b')), 't1', 'fresh');
      expect(await store.threadOwner('t1')).toBe('b');
    });

    it("deleteAllThreads deletes only the agent's threads and returns the counts", async () => {
      const store = await open();
      const ga = chatGraph(store.checkpointer('a'));
      const gb = chatGraph(store.checkpointer('b'));
      await say(ga, 'a1', 'x');
      await say(ga, 'a1', 'y');
      await say(ga, 'a2', 'z');
      await store.putMemory('a', 'a1', 'summary', { text: 'a1' });
      await store.putMemory('a', 'a2', 'summary', { text: 'a2' });
      await say(gb, 'b1', 'keep me');
      await store.putMemory('b', 'b1', 'summary', { text: 'b1' });
      const expected = await countRows(['a1', 'a2']);
      const bBefore = await countRows(['b1']);
      expect(Object.values(expected).every((n) => n > 0)).toBe(true);
      expect(expected.persistent_memory).toBe(2);

      expect(await store.deleteAllThreads('a')).toEqual(expected);
      expect(await store.listThreads('a')).toEqual([]);
      expect(await store.threadOwner('a1')).toBeNull();
      expect(await countRows(['b1'])).toEqual(bBefore);
      expect(await store.listThreads('b')).toEqual(['b1']);
      expect(await store.getMemory('b', 'b1', 'summary')).toEqual({ text: 'b1' });
      const b1 = await gb.getState(cfg('b1'));
      expect((b1.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['keep me', 'reply 1']);
      expect(await store.deleteAllThreads('a')).toEqual({ checkpoints: 0, checkpoint_blobs: 0, checkpoint_writes: 0, persistent_memory: 0 });
    });

    it('migrateAgentId moves every thread and its memory to the new id in one go', async () => {
      const store = await open();
      const old = chatGraph(store.checkpointer('old'));
      await say(old, 't1', 'one');
      await say(old, 't2', 'two');
      await store.putMemory('old', 't1', 'summary', { text: 's1' });
      await say(chatGraph(store.checkpointer('other')), 'o1', 'untouched');

      expect(await store.migrateAgentId('old', 'new')).toBe(2);
      expect(await store.listThreads('old')).toEqual([]);
      expect(await store.listThreads('new')).toEqual(['t1', 't2']);
      expect(await store.listThreads('other')).toEqual(['o1']);
      expect(await store.getMemory('new', 't1', 'summary')).toEqual({ text: 's1' });
      expect(await store.getMemory('old', 't1', 'summary')).toBeUndefined();
      // The new id continues the conversation; the old id no longer sees or writes it.
      const continued = await say(chatGraph(store.checkpointer('new')), 't1', 'again');
      expect(continued.messages.map((m: BaseMessage) => m.content)).toEqual(['one', 'reply 1', 'again', 'reply 3']);
      expect(await store.checkpointer('old').getTuple(cfg('t1'))).toBeUndefined();
      await expect(say(old, 't1', 'stale')).rejects.toBeInstanceOf(ThreadOwnershipError);
      expect(await store.migrateAgentId('old', 'new')).toBe(0);
    });
  });

  describe('durable A2A task store', () => {
    const task: Task = {
      kind: 'task',
      id: 'task-1',
      contextId: 'ctx-1',
      status: {
        state: 'completed',
        timestamp: '2025-01-01T00:00:00.000Z',
        message: { kind: 'message', messageId: 'm2', role: 'agent', parts: [{ kind: 'text', text: 'done' }] },
      },
      history: [{ kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], contextId: 'ctx-1' }],
      artifacts: [{ artifactId: 'a1', parts: [{ kind: 'data', data: { n: 1, nested: { ok: true } } }] }],
      metadata: { source: 'test' },
    };

    it('round-trips a task, overwrites on save and survives a reopen', async () => {
      const store = await open();
      const tasks = store.taskStore();
      expect(await tasks.load('task-1')).toBeUndefined();
      await tasks.save({ ...task, status: { state: 'working' } });
      await tasks.save(task);
      expect(await tasks.load('task-1')).toEqual(task);
      await store.close();
      const reopened = await open();
      expect(await reopened.taskStore().load('task-1')).toEqual(task);
      expect(await (await open()).taskStore().load('task-1')).toEqual(task); // and from a second handle
    });

    const withState = (state: Task['status']['state'], text?: string): Task => ({
      ...task,
      status: { state },
      artifacts: text ? [{ artifactId: 'a1', parts: [{ kind: 'text', text }] }] : [],
    });

    it('writes the first save and every settled save at once, and coalesces in-progress updates', async () => {
      const writer = (await open()).taskStore();
      const other = (await open()).taskStore(); // another handle reads only what is on disk
      await writer.save(withState('submitted'));
      expect((await other.load('task-1'))?.status.state).toBe('submitted');
      await writer.save(withState('working', 'Hel'));
      await writer.save(withState('working', 'Hello'));
      // This process sees the newest content at once; the file catches up within TASK_FLUSH_MS.
      expect((await writer.load('task-1'))?.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello' }]);
      expect((await other.load('task-1'))?.status.state).toBe('submitted');
      await expect.poll(async () => (await other.load('task-1'))?.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello' }]);
      await writer.save(withState('working', 'Hello, wor'));
      await writer.save(withState('completed', 'Hello, world'));
      expect(await other.load('task-1')).toEqual(withState('completed', 'Hello, world'));
      // A2A never reopens a final task: a late in-progress save leaves it as it is.
      await writer.save(withState('working', 'late'));
      expect((await other.load('task-1'))?.status.state).toBe('completed');
    });

    it('never lets a late in-progress write overwrite a task in a final state', async () => {
      const runner = (await open()).taskStore();
      const canceller = (await open()).taskStore();
      await runner.save(withState('working'));
      await runner.save(withState('working', 'partial'));
      await canceller.save(withState('canceled'));
      await (runner as unknown as { flush(): unknown }).flush(); // the coalesced write, late
      expect((await canceller.load('task-1'))?.status.state).toBe('canceled');
      await (await open()).taskStore().save(withState('working', 'from a third handle')); // a first save, late too
      expect((await canceller.load('task-1'))?.status.state).toBe('canceled');
    });

    it('writes a settled state after an in-progress flush already under way, never before it', async () => {
      const runner = (await open()).taskStore() as ReturnType<MemoryStore['taskStore']> & { flush(): unknown };
      await runner.save(withState('working'));
      await runner.save(withState('working', 'asking'));
      const flushing = runner.flush(); // the coalesced 'working' write, on its way
      await new Promise((resolve) => setImmediate(resolve)); // it has taken the update and sent its query
      await runner.save(withState('input-required', 'which order?'));
      await flushing;
      expect((await (await open()).taskStore().load('task-1'))?.status.state).toBe('input-required');
    });

    it('lets a task waiting for input be resumed by any handle', async () => {
      await (await open()).taskStore().save(withState('input-required'));
      const resumer = (await open()).taskStore();
      await resumer.save(withState('working', 'resumed'));
      expect((await (await open()).taskStore().load('task-1'))?.status.state).toBe('working');
    });

    it("finds the newest task waiting for input on one of the agent's threads, and only there", async () => {
      const store = await open();
      await say(chatGraph(store.checkpointer('a')), 'ctx-1', 'hi'); // thread ctx-1 belongs to agent a
      const tasks = store.taskStore();
      expect(await store.waitingTask('a', 'ctx-1')).toBeUndefined();
      await tasks.save({ ...withState('completed'), id: 'done' });
      await tasks.save({ ...withState('input-required'), id: 'waiting' });
      expect(await store.waitingTask('a', 'ctx-1')).toBe('waiting');
      expect(await store.waitingTask('b', 'ctx-1')).toBeUndefined(); // another agent's thread
      expect(await store.waitingTask('a', 'ctx-2')).toBeUndefined();
      await tasks.save({ ...withState('working'), id: 'waiting' }); // resumed
      expect(await store.waitingTask('a', 'ctx-1')).toBeUndefined();
    });

    it('writes pending in-progress updates when the store closes, and refuses saves after', async () => {
      const store = await open();
      const tasks = store.taskStore();
      await tasks.save(withState('working'));
      await tasks.save(withState('working', 'last words'));
      await store.close();
      expect((await (await open()).taskStore().load('task-1'))?.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'last words' }]);
      await expect(tasks.save(withState('working', 'too late'))).rejects.toThrow(/closed/);
    });
  });
});
