// The SQLite store's group commit (write-batch.ts) on a real database file: writes queued in
// one event-loop turn share one commit, a failing write rolls back only itself, order holds,
// and a second connection sees a write once its promise resolves.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { HumanMessage } from '@langchain/core/messages';
import { SqliteCheckpointSaver } from './checkpointer.ts';
import { ThreadOwnershipError } from './types.ts';
import { writeBatch } from './write-batch.ts';
import { cfg, chatGraph, useTempStoreFile } from './test-support.ts';

const temp = useTempStoreFile('batch-');

function rawDb(file: string) {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  return db;
}

describe('group commit of the SQLite store', () => {
  it('commits the writes of concurrent requests together, each answering with its own result', async () => {
    const store = temp.open();
    const before = { ...writeBatchOf(store).stats };
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.appendTranscript('a', `t${i}`, [{ role: 'human', content: `hello ${i}` }])));
    const stats = writeBatchOf(store).stats;
    expect(stats.writes - before.writes).toBe(8);
    expect(stats.commits - before.commits).toBe(1);
    // What resolved is visible to another connection on the file.
    const other = rawDb(temp.file);
    try {
      expect(other.prepare("SELECT count(*) FROM persistent_memory WHERE key LIKE 'transcript:%'").pluck().get()).toBe(8);
    } finally {
      other.close();
    }
  });

  it('rolls back only the write that failed; the others of its commit stay', async () => {
    const store = temp.open();
    await store.putMemory('a', 'owned-by-a', 'k', 1);
    const results = await Promise.allSettled([
      store.putMemory('a', 't-ok-1', 'k', 'first'),
      store.putMemory('b', 'owned-by-a', 'k', 'not b’s thread'),
      store.putMemory('a', 't-ok-2', 'k', 'second'),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toBeInstanceOf(ThreadOwnershipError);
    expect(await store.getMemory('a', 't-ok-1', 'k')).toBe('first');
    expect(await store.getMemory('a', 't-ok-2', 'k')).toBe('second');
    expect(await store.getMemory('b', 'owned-by-a', 'k')).toBeUndefined();
    expect(await store.getMemory('a', 'owned-by-a', 'k')).toBe(1);
  });

  it('keeps the order writes were queued in: the later value wins', async () => {
    const store = temp.open();
    await Promise.all([store.putMemory('a', 't', 'k', 1), store.putMemory('a', 't', 'k', 2), store.putMemory('a', 't', 'k', 3)]);
    expect(await store.getMemory('a', 't', 'k')).toBe(3);
  });

  it('a commit that cannot be made rejects its writes and loses nothing committed before', async () => {
    const store = temp.open();
    await store.putMemory('a', 't', 'k', 'kept');
    // Another connection holds the write lock past the store's busy timeout.
    const other = rawDb(temp.file);
    other.pragma('busy_timeout = 0');
    other.prepare('BEGIN IMMEDIATE').run();
    const db = (store as unknown as { db: Database.Database }).db;
    db.pragma('busy_timeout = 50');
    try {
      await expect(store.putMemory('a', 't', 'k', 'lost')).rejects.toThrow(/locked|busy/i);
    } finally {
      other.prepare('ROLLBACK').run();
      other.close();
      db.pragma('busy_timeout = 5000');
    }
    expect(await store.getMemory('a', 't', 'k')).toBe('kept');
    await store.putMemory('a', 't', 'k', 'next');
    expect(await store.getMemory('a', 't', 'k')).toBe('next');
  });
});

/** A saver on a fresh file whose thread 't' has had one turn. */
async function threadWithOneTurn() {
  const saver = temp.open().checkpointer('agent') as SqliteCheckpointSaver;
  await chatGraph(saver).invoke({ messages: [new HumanMessage('hi')] }, cfg('t'));
  return saver;
}

describe('readForRun: a warm turn deserialises its state once', () => {
  it('hands the tuple it read to the run’s first read, once', async () => {
    const saver = await threadWithOneTurn();
    const read = await saver.readForRun('t');
    expect(read).toBeDefined();
    expect(await saver.getTuple(cfg('t'))).toBe(read);
    const again = await saver.getTuple(cfg('t'));
    expect(again).not.toBe(read); // handed once; a later read reads the database
    expect(again?.checkpoint.id).toBe(read?.checkpoint.id);
  });

  it('reads afresh when the thread changed in between, here or in another process', async () => {
    const saver = await threadWithOneTurn();
    const stale = await saver.readForRun('t');
    // Another handle on the file (as another runtime process) runs a turn on the thread.
    const otherStore = temp.open();
    await chatGraph(otherStore.checkpointer('agent')).invoke({ messages: [new HumanMessage('elsewhere')] }, cfg('t'));
    const now = await saver.getTuple(cfg('t'));
    expect(now).not.toBe(stale);
    expect(now?.checkpoint.id).not.toBe(stale?.checkpoint.id);
    expect((now?.checkpoint.channel_values.messages as unknown[]).length).toBe(4);

    // A pending write through this saver in between: the held tuple is not the state any more.
    const held = await saver.readForRun('t');
    await saver.putWrites(held!.config, [['messages', []]], 'task-1');
    const fresh = await saver.getTuple(cfg('t'));
    expect(fresh).not.toBe(held);
    expect(fresh?.pendingWrites).toHaveLength(1);
  });
});

function writeBatchOf(store: unknown) {
  return writeBatch((store as { db: Database.Database }).db);
}
