// The SQLite memory store on real files: schema migrations, thread ownership and isolation
// between agents (spec 2.4, 5.3), the delete / migrate operations behind the management API
// (spec 4.2), persistent memory, the durable A2A task store, and several handles — in one
// process and in two processes — sharing one file.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { BaseMessage } from '@langchain/core/messages';
import { emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { MIGRATIONS, openSqliteStore } from './sqlite.ts';
import { cfg, chatGraph, say, useTempStoreFile } from './test-support.ts';
import { TASK_FLUSH_MS } from './taskStore.ts';
import { ThreadOwnershipError, type DeletedCounts } from './types.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');

const temp = useTempStoreFile('memstore-');
const open = (f?: string) => temp.open(f);

/** Row counts of a set of threads, read directly from the file. */
function countRows(threads: string[]): DeletedCounts {
  const db = new Database(temp.file, { readonly: true });
  try {
    const marks = threads.map(() => '?').join(',');
    const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table} WHERE thread_id IN (${marks})`).pluck().get(...threads) as number;
    return {
      checkpoints: count('checkpoints'),
      checkpoint_blobs: count('checkpoint_blobs'),
      checkpoint_writes: count('checkpoint_writes'),
      persistent_memory: count('persistent_memory'),
    };
  } finally {
    db.close();
  }
}

describe('openSqliteStore', () => {
  it('creates parent directories, uses WAL and records numbered migrations once', async () => {
    const nested = path.join(temp.dir, 'a', 'b', 'memory.sqlite');
    const store = open(nested);
    await store.ping();
    expect(store.backend).toBe('sqlite');
    await store.close();
    open(nested); // a second open must not re-apply migration 1 (it would fail: tables exist)
    const db = new Database(nested, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const versions = db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all();
      expect(versions).toEqual(MIGRATIONS.map((_, i) => i + 1));
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(
        expect.arrayContaining(['a2a_tasks', 'checkpoint_blobs', 'checkpoint_writes', 'checkpoints', 'persistent_memory', 'schema_version', 'threads']),
      );
    } finally {
      db.close();
    }
  });

  it('refuses a file whose schema is newer than this code', async () => {
    await open().close();
    const db = new Database(temp.file);
    db.prepare('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)').run(MIGRATIONS.length + 1, 'later');
    db.close();
    expect(() => openSqliteStore(temp.file)).toThrow(/newer than this runtime supports/);
  });

  it('ping rejects once the store is closed', async () => {
    const store = open();
    await store.ping();
    await store.close();
    await expect(store.ping()).rejects.toThrow();
    await store.close(); // idempotent
  });
});

describe('thread ownership', () => {
  it('isolates agents: put/putWrites refused, getTuple/list see nothing, listThreads per agent', async () => {
    const store = open();
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
    const store = open();
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
    const store = open();
    const graph = chatGraph(store.checkpointer('a'));
    await say(graph, 't1', 'one');
    await say(graph, 't1', 'two');
    await say(graph, 't2', 'keep');
    await store.putMemory('a', 't1', 'summary', { text: 's' });
    const expected = countRows(['t1']);
    expect(expected.checkpoints).toBeGreaterThan(0);
    expect(expected.checkpoint_blobs).toBeGreaterThan(0);
    expect(expected.checkpoint_writes).toBeGreaterThan(0);
    expect(expected.persistent_memory).toBe(1);

    expect(await store.deleteThread('t1')).toEqual(expected);
    expect(countRows(['t1'])).toEqual({ checkpoints: 0, checkpoint_blobs: 0, checkpoint_writes: 0, persistent_memory: 0 });
    expect(await store.threadOwner('t1')).toBeNull();
    expect(await store.listThreads('a')).toEqual(['t2']);
    expect(await store.deleteThread('t1')).toEqual({ checkpoints: 0, checkpoint_blobs: 0, checkpoint_writes: 0, persistent_memory: 0 });
    // The id is free again: any agent may start a new thread with it.
    await say(chatGraph(store.checkpointer('b')), 't1', 'fresh');
    expect(await store.threadOwner('t1')).toBe('b');
  });

  it('deleteAllThreads deletes only the agent\'s threads and returns the counts', async () => {
    const store = open();
    const ga = chatGraph(store.checkpointer('a'));
    const gb = chatGraph(store.checkpointer('b'));
    await say(ga, 'a1', 'x');
    await say(ga, 'a1', 'y');
    await say(ga, 'a2', 'z');
    await store.putMemory('a', 'a1', 'summary', { text: 'a1' });
    await store.putMemory('a', 'a2', 'summary', { text: 'a2' });
    await say(gb, 'b1', 'keep me');
    await store.putMemory('b', 'b1', 'summary', { text: 'b1' });
    const expected = countRows(['a1', 'a2']);
    const bBefore = countRows(['b1']);
    expect(Object.values(expected).every((n) => n > 0)).toBe(true);
    expect(expected.persistent_memory).toBe(2);

    expect(await store.deleteAllThreads('a')).toEqual(expected);
    expect(await store.listThreads('a')).toEqual([]);
    expect(await store.threadOwner('a1')).toBeNull();
    expect(countRows(['b1'])).toEqual(bBefore);
    expect(await store.listThreads('b')).toEqual(['b1']);
    expect(await store.getMemory('b', 'b1', 'summary')).toEqual({ text: 'b1' });
    const b1 = await gb.getState(cfg('b1'));
    expect((b1.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['keep me', 'reply 1']);
    expect(await store.deleteAllThreads('a')).toEqual({ checkpoints: 0, checkpoint_blobs: 0, checkpoint_writes: 0, persistent_memory: 0 });
  });

  it('migrateAgentId moves every thread and its memory to the new id in one go', async () => {
    const store = open();
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

describe('several handles on one file', () => {
  it('two openSqliteStore() handles see each other\'s writes', async () => {
    const one = open();
    const two = open();
    const g1 = chatGraph(one.checkpointer('agent'));
    const g2 = chatGraph(two.checkpointer('agent'));
    await say(g1, 't', 'from one');
    const seen = await g2.getState(cfg('t'));
    expect((seen.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['from one', 'reply 1']);
    await say(g2, 't', 'from two');
    const back = await g1.getState(cfg('t'));
    expect((back.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['from one', 'reply 1', 'from two', 'reply 3']);
    await two.putMemory('agent', 't', 'summary', { by: 'two' });
    expect(await one.getMemory('agent', 't', 'summary')).toEqual({ by: 'two' });
    expect(await one.listThreads('agent')).toEqual(['t']);
    await one.deleteThread('t');
    expect(await two.threadOwner('t')).toBeNull();
    expect(await g2.getState(cfg('t'))).toMatchObject({ values: {} });
  });

  it('two processes write the same file at the same time without SQLITE_BUSY', async () => {
    const storeUrl = pathToFileURL(path.join(HERE, 'sqlite.ts')).href;
    const script = path.join(temp.dir, 'child.mts');
    // The child writes memory and checkpoints in many short transactions while this process
    // does the same; the busy timeout must turn every lock conflict into a wait.
    fs.writeFileSync(
      script,
      `import { openSqliteStore } from ${JSON.stringify(storeUrl)};
const [file, n] = process.argv.slice(2);
const store = openSqliteStore(file);
const saver = store.checkpointer('child');
console.log('ready');
for (let i = 0; i < Number(n); i++) {
  await store.putMemory('child', 'c-' + i, 'k', { i });
  const id = 'ck-' + String(i).padStart(6, '0');
  await saver.put({ configurable: { thread_id: 'child-thread' } },
    { v: 4, id, ts: new Date().toISOString(), channel_values: { n: i }, channel_versions: { n: i + 1 }, versions_seen: {} },
    { source: 'loop', step: i, parents: {} }, { n: i + 1 });
}
await store.close();
console.log('child done');
`,
    );
    const parent = open();
    const N = 300;
    const child = spawn(process.execPath, ['--import', 'tsx', script, temp.file, String(N)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Start writing only once the child is about to write, so the two really overlap.
    await new Promise<void>((resolve) => {
      const check = () => (out.includes('ready') ? resolve() : setTimeout(check, 5));
      check();
    });
    let running = true;
    void exited.then(() => (running = false));
    let written = 0;
    for (; written < N || running; written++) {
      await parent.putMemory('parent', `p-${written}`, 'k', { i: written });
      if (written % 20 === 0) await new Promise((r) => setImmediate(r)); // let the exit event in
    }
    const code = await exited;
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('child done');
    expect(await parent.listThreads('parent')).toHaveLength(written);
    expect(await parent.listThreads('child')).toHaveLength(N + 1);
    expect(await parent.getMemory('child', `c-${N - 1}`, 'k')).toEqual({ i: N - 1 });
    const latest = await parent.checkpointer('child').getTuple(cfg('child-thread'));
    expect(latest!.checkpoint.channel_values).toEqual({ n: N - 1 });
  });
});

describe('durable A2A task store', () => {
  const task: Task = {
    kind: 'task',
    id: 'task-1',
    contextId: 'ctx-1',
    status: { state: 'completed', timestamp: '2025-01-01T00:00:00.000Z', message: { kind: 'message', messageId: 'm2', role: 'agent', parts: [{ kind: 'text', text: 'done' }] } },
    history: [{ kind: 'message', messageId: 'm1', role: 'user', parts: [{ kind: 'text', text: 'hi' }], contextId: 'ctx-1' }],
    artifacts: [{ artifactId: 'a1', parts: [{ kind: 'data', data: { n: 1, nested: { ok: true } } }] }],
    metadata: { source: 'test' },
  };

  it('round-trips a task, overwrites on save and survives a reopen', async () => {
    const store = open();
    const tasks = store.taskStore();
    expect(await tasks.load('task-1')).toBeUndefined();
    await tasks.save({ ...task, status: { state: 'working' } });
    await tasks.save(task);
    expect(await tasks.load('task-1')).toEqual(task);
    await store.close();
    const reopened = open();
    expect(await reopened.taskStore().load('task-1')).toEqual(task);
    expect(await open().taskStore().load('task-1')).toEqual(task); // and from a second handle
  });

  const withState = (state: Task['status']['state'], text?: string): Task => ({
    ...task,
    status: { state },
    artifacts: text ? [{ artifactId: 'a1', parts: [{ kind: 'text', text }] }] : [],
  });

  it('writes the first save and every settled save at once, and coalesces in-progress updates', async () => {
    const writer = open().taskStore();
    const other = open().taskStore(); // another handle reads only what is on disk
    await writer.save(withState('submitted'));
    expect((await other.load('task-1'))?.status.state).toBe('submitted');
    await writer.save(withState('working', 'Hel'));
    await writer.save(withState('working', 'Hello'));
    // This process sees the newest content at once; the file catches up within TASK_FLUSH_MS.
    expect((await writer.load('task-1'))?.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello' }]);
    expect((await other.load('task-1'))?.status.state).toBe('submitted');
    await new Promise((r) => setTimeout(r, TASK_FLUSH_MS * 5));
    expect((await other.load('task-1'))?.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'Hello' }]);
    await writer.save(withState('working', 'Hello, wor'));
    await writer.save(withState('completed', 'Hello, world'));
    expect(await other.load('task-1')).toEqual(withState('completed', 'Hello, world'));
    // A2A never reopens a final task: a late in-progress save leaves it as it is.
    await writer.save(withState('working', 'late'));
    expect((await other.load('task-1'))?.status.state).toBe('completed');
  });

  it('never lets a late in-progress write overwrite a task in a final state', async () => {
    const runner = open().taskStore();
    const canceller = open().taskStore();
    await runner.save(withState('working'));
    await runner.save(withState('working', 'partial'));
    await canceller.save(withState('canceled'));
    await new Promise((r) => setTimeout(r, TASK_FLUSH_MS * 5)); // the coalesced write comes late
    expect((await canceller.load('task-1'))?.status.state).toBe('canceled');
    await open().taskStore().save(withState('working', 'from a third handle')); // a first save, late too
    expect((await canceller.load('task-1'))?.status.state).toBe('canceled');
  });

  it('lets a task waiting for input be resumed by any handle', async () => {
    await open().taskStore().save(withState('input-required'));
    const resumer = open().taskStore();
    await resumer.save(withState('working', 'resumed'));
    expect((await open().taskStore().load('task-1'))?.status.state).toBe('working');
  });

  it("finds the newest task waiting for input on one of the agent's threads, and only there", async () => {
    const store = open();
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
    const store = open();
    const tasks = store.taskStore();
    await tasks.save(withState('working'));
    await tasks.save(withState('working', 'last words'));
    await store.close();
    expect((await open().taskStore().load('task-1'))?.artifacts?.[0]?.parts).toEqual([{ kind: 'text', text: 'last words' }]);
    await expect(tasks.save(withState('working', 'too late'))).rejects.toThrow(/closed/);
  });

  it('upgrades a file whose stored task documents SQLite cannot parse: later lookups on their context still work', async () => {
    // A file at schema 2, as an earlier runtime left it: one task nested past SQLite's JSON
    // depth limit, one unreadable document, and a plain task waiting for input.
    const db = new Database(temp.file);
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
    for (const [i, step] of MIGRATIONS.slice(0, 2).entries()) {
      db.exec(step as string);
      db.prepare('INSERT INTO schema_version VALUES (?, ?)').run(i + 1, new Date().toISOString());
    }
    db.prepare("INSERT INTO threads VALUES ('ctx-1', 'a', '2026-01-01')").run();
    const deep = `{"a":`.repeat(1100) + '1' + '}'.repeat(1100);
    const insert = db.prepare('INSERT INTO a2a_tasks (task_id, context_id, task, updated_at) VALUES (?, ?, ?, ?)');
    insert.run('waiting', 'ctx-1', JSON.stringify(withState('input-required')), '2026-01-01T00:00:01Z');
    insert.run('deep', 'ctx-1', `{"id":"deep","status":{"state":"completed"},"metadata":${deep}}`, '2026-01-01T00:00:02Z');
    insert.run('garbled', 'ctx-1', '{"id": "garbled", "status": ', '2026-01-01T00:00:03Z');
    expect(() => db.prepare("SELECT json_extract(task, '$.status.state') FROM a2a_tasks").all()).toThrow(/JSON/);
    db.close();

    const store = open();
    expect(await store.waitingTask('a', 'ctx-1')).toBe('waiting');
    expect((await store.taskStore().load('deep'))?.status.state).toBe('completed');
    await store.taskStore().save({ ...withState('working'), id: 'waiting' });
    expect(await store.waitingTask('a', 'ctx-1')).toBeUndefined();
  });
});
