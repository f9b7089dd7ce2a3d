// SQLite backend of the runtime's memory store (spec 2.4, 4.2, 5.3). One database file holds
// thread ownership, LangGraph checkpoints, persistent memory and durable A2A tasks, so that a
// restart (or a second runtime process on the same file) sees the same conversations.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { TaskStore } from '@a2a-js/sdk/server';
import { SqliteCheckpointSaver } from './checkpointer.ts';
import { claimThread, deleteThreadRows } from './checkpoint-statements.ts';
import { SqliteTaskStore } from './taskStore.ts';
import type { LeaseOptions } from './postgres/taskStore.ts';
import { sqliteRuntimeSettings, type RuntimeSettingsStore } from './runtime-settings.ts';
import { writeBatch, type WriteBatch } from './write-batch.ts';
import { sqlitePushStore, type PushStore } from './push-store.ts';
import { migrateSqlite } from '../../common/migrations/sqlite.ts';
import { MIGRATIONS } from './sqlite-migrations.ts';
import { sqliteTaskList, type TaskListPage, type TaskListQuery } from './task-list.ts';

export { MIGRATIONS };
import type { DeletedCounts, MemoryStore, ThreadClaim, ThreadCursor, TranscriptMessage } from './types.ts';
import { claimResult, OwnerCache, type ThreadOwners } from './owner-cache.ts';

/** How long a connection waits for another connection's (or process's) write lock before
 * failing with SQLITE_BUSY (SQLITE_BUSY_TIMEOUT_MS). Two runtime processes may share one file;
 * their write transactions are short, so a few seconds of waiting is ample. The wait blocks
 * the process (better-sqlite3 is synchronous); past it the write fails as a store outage
 * (store/unavailable.ts). */
export const BUSY_TIMEOUT_MS = 5_000;

class SqliteMemoryStore implements MemoryStore {
  readonly backend = 'sqlite' as const;
  private readonly savers = new Map<string, SqliteCheckpointSaver>();
  private tasks: SqliteTaskStore | undefined;
  private readonly stmt;
  /** Every write goes through the connection's group commit (write-batch.ts). */
  private readonly writes: WriteBatch;
  private readonly owners = new OwnerCache();

  constructor(
    private readonly db: Database.Database,
    private readonly lease: LeaseOptions,
  ) {
    this.writes = writeBatch(db);
    // Prepared once per connection; every method below only binds and runs.
    const owned = 'SELECT thread_id FROM threads WHERE agent_id = ?';
    this.stmt = {
      ping: db.prepare('SELECT 1'),
      listThreads: db.prepare('SELECT thread_id FROM threads WHERE agent_id = ? ORDER BY created_at, rowid').pluck(),
      listUserThreads: db.prepare('SELECT thread_id FROM threads WHERE agent_id = ? AND user_id = ? ORDER BY created_at, rowid').pluck(),
      // A page (management/thread-pages.ts): `@user` null for every user; row values compare (created_at, thread_id).
      threadPage: db.prepare(
        'SELECT created_at AS createdAt, thread_id AS threadId FROM threads WHERE agent_id = @agent AND (@user IS NULL OR user_id = @user) AND (created_at, thread_id) > (@at, @id) ORDER BY created_at, thread_id LIMIT @limit',
      ),
      threadOwner: db.prepare('SELECT agent_id FROM threads WHERE thread_id = ?').pluck(),
      threadOwners: db.prepare('SELECT agent_id AS agentId, user_id AS user FROM threads WHERE thread_id = ?'),
      claimUser: db.prepare('INSERT INTO threads (thread_id, agent_id, user_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (thread_id) DO NOTHING'),
      delAllCheckpoints: db.prepare(`DELETE FROM checkpoints WHERE thread_id IN (${owned})`),
      delAllBlobs: db.prepare(`DELETE FROM checkpoint_blobs WHERE thread_id IN (${owned})`),
      delAllWrites: db.prepare(`DELETE FROM checkpoint_writes WHERE thread_id IN (${owned})`),
      delAllMemory: db.prepare(`DELETE FROM persistent_memory WHERE thread_id IN (${owned})`),
      delAllThreads: db.prepare('DELETE FROM threads WHERE agent_id = ?'),
      migrateThreads: db.prepare('UPDATE threads SET agent_id = ? WHERE agent_id = ?'),
      // OR REPLACE: a stale row of newId for the same (thread, key) must not abort the migration.
      migrateMemory: db.prepare('UPDATE OR REPLACE persistent_memory SET agent_id = ? WHERE agent_id = ?'),
      lastTranscriptKey: db
        .prepare("SELECT max(key) FROM persistent_memory WHERE agent_id = ? AND thread_id = ? AND key >= 'transcript:' AND key < 'transcript;'")
        .pluck(),
      readTranscript: db
        .prepare("SELECT value FROM persistent_memory WHERE thread_id = ? AND key >= 'transcript:' AND key < 'transcript;' ORDER BY key")
        .pluck(),
      waitingTask: db
        .prepare(
          `SELECT a.task_id FROM a2a_tasks a JOIN threads t ON t.thread_id = a.context_id AND t.agent_id = ?
           WHERE a.context_id = ? AND a.state = 'input-required'
           ORDER BY a.updated_at DESC LIMIT 1`,
        )
        .pluck(),
      waitingTaskCount: db
        .prepare("SELECT count(*) FROM a2a_tasks a JOIN threads t ON t.thread_id = a.context_id AND t.agent_id = ? WHERE a.state = 'input-required'")
        .pluck(),
      getMemory: db.prepare('SELECT value FROM persistent_memory WHERE agent_id = ? AND thread_id = ? AND key = ?').pluck(),
      putMemory: db.prepare(
        `INSERT INTO persistent_memory (agent_id, thread_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (agent_id, thread_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
    };
  }

  checkpointer(agentId: string): SqliteCheckpointSaver {
    let saver = this.savers.get(agentId);
    if (!saver) {
      saver = new SqliteCheckpointSaver(this.db, agentId);
      this.savers.set(agentId, saver);
    }
    return saver;
  }

  taskStore(): TaskStore & SqliteTaskStore {
    this.tasks ??= new SqliteTaskStore(this.db, this.lease);
    return this.tasks;
  }

  private settingsStore: RuntimeSettingsStore | undefined;

  runtimeSettings(): RuntimeSettingsStore {
    this.settingsStore ??= sqliteRuntimeSettings(this.db, this.writes);
    return this.settingsStore;
  }

  private pushes: PushStore | undefined;

  /** Push-notification configurations and outbox (push-store.ts). */
  pushStore(): PushStore {
    this.pushes ??= sqlitePushStore(this.db, this.writes);
    return this.pushes;
  }

  async waitingTask(agentId: string, contextId: string): Promise<string | undefined> {
    return (this.stmt.waitingTask.get(agentId, contextId) as string | undefined) ?? undefined;
  }

  async waitingTaskCount(agentId: string): Promise<number> {
    return this.stmt.waitingTaskCount.get(agentId) as number;
  }

  private taskList: ReturnType<typeof sqliteTaskList> | undefined;

  async listTasks(agentId: string, query: TaskListQuery): Promise<TaskListPage> {
    this.taskList ??= sqliteTaskList(this.db);
    return this.taskList(agentId, query);
  }

  async ping(): Promise<void> {
    this.stmt.ping.get();
  }

  /** Whether a write could start now: takes the write lock without waiting and gives it back
   * (store/guard.ts asks while an outage is noted; reads go on while another connection holds
   * the lock). */
  async pingWrite(): Promise<void> {
    if (this.db.inTransaction) return;
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      this.db.exec('BEGIN IMMEDIATE');
      this.db.exec('ROLLBACK');
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  async listThreads(agentId: string, user?: string): Promise<string[]> {
    return (user === undefined ? this.stmt.listThreads.all(agentId) : this.stmt.listUserThreads.all(agentId, user)) as string[];
  }

  async listThreadPage(agentId: string, page: { user?: string; limit: number; after?: ThreadCursor }): Promise<ThreadCursor[]> {
    const { user, limit, after } = page;
    return this.stmt.threadPage.all({ agent: agentId, user: user ?? null, at: after?.createdAt ?? '', id: after?.threadId ?? '', limit }) as ThreadCursor[];
  }

  /** The thread's owners, from the cache or the database (cached when found). */
  private threadOwners(threadId: string): ThreadOwners | undefined {
    const cached = this.owners.get(threadId);
    if (cached) return cached;
    const row = this.stmt.threadOwners.get(threadId) as ThreadOwners | undefined;
    if (row) this.owners.set(threadId, row);
    return row;
  }

  async claimThread(agentId: string, threadId: string, user: string): Promise<ThreadClaim> {
    const known = this.threadOwners(threadId);
    if (known) return claimResult(known, agentId, user, false);
    // A read first, a write only for a new thread; another process may claim it meanwhile.
    const inserted = await this.writes.run(() => this.stmt.claimUser.run(threadId, agentId, user, new Date().toISOString()).changes === 1);
    const owners = this.threadOwners(threadId);
    return owners ? claimResult(owners, agentId, user, inserted) : 'other';
  }

  async threadUser(agentId: string, threadId: string): Promise<string | null> {
    const owners = this.threadOwners(threadId);
    return owners && owners.agentId === agentId ? owners.user : null;
  }

  async threadOwner(threadId: string): Promise<string | null> {
    return (this.stmt.threadOwner.get(threadId) as string | undefined) ?? null;
  }

  async deleteThread(threadId: string): Promise<DeletedCounts> {
    const counts = await this.writes.run(() => deleteThreadRows(this.db, threadId));
    this.owners.delete(threadId); // after the commit: a lookup meanwhile may have cached the row
    return counts;
  }

  async deleteAllThreads(agentId: string): Promise<DeletedCounts> {
    // Set-based deletes restricted to the agent's threads (spec 4.2: "deletes only this
    // agent's threads"); the ownership rows go last since the other deletes select through them.
    return this.afterClear(
      this.writes.run((): DeletedCounts => {
        const counts: DeletedCounts = {
          checkpoints: this.stmt.delAllCheckpoints.run(agentId).changes,
          checkpoint_blobs: this.stmt.delAllBlobs.run(agentId).changes,
          checkpoint_writes: this.stmt.delAllWrites.run(agentId).changes,
          persistent_memory: this.stmt.delAllMemory.run(agentId).changes,
        };
        this.stmt.delAllThreads.run(agentId);
        return counts;
      }),
    );
  }

  async migrateAgentId(oldId: string, newId: string): Promise<number> {
    if (oldId === newId) return (await this.listThreads(oldId)).length;
    // One transaction: a crash or a concurrent reader never sees a thread half-migrated
    // (ownership moved but memory rows still under the old id).
    // The agent of every migrated thread changes; its user stays (docs/security.md).
    return this.afterClear(
      this.writes.run(() => {
        const threads = this.stmt.migrateThreads.run(newId, oldId).changes;
        this.stmt.migrateMemory.run(newId, oldId);
        return threads;
      }),
    );
  }

  /** Forgets every cached owner once `write` committed (its rows changed owners). */
  private async afterClear<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.owners.clear();
    }
  }

  async getMemory(agentId: string, threadId: string, key: string): Promise<unknown | undefined> {
    const raw = this.stmt.getMemory.get(agentId, threadId, key) as string | undefined;
    return raw === undefined ? undefined : JSON.parse(raw);
  }

  async putMemory(agentId: string, threadId: string, key: string, value: unknown): Promise<void> {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`persistent memory value for '${key}' is not JSON-serialisable`);
    // Memory is thread data (spec 2.4): writing it claims an unknown thread for the agent and is
    // refused on another agent's thread, exactly like a checkpoint write.
    await this.writes.run(() => {
      claimThread(this.db, threadId, agentId);
      this.stmt.putMemory.run(agentId, threadId, key, json, new Date().toISOString());
    });
  }

  async appendTranscript(agentId: string, threadId: string, messages: TranscriptMessage[]): Promise<void> {
    if (messages.length === 0) return;
    // Transcript entries are persistent-memory rows keyed transcript:<seq>, so deletes,
    // counts and agent-id migration treat them like the rest of the thread's memory.
    await this.writes.run(() => {
      claimThread(this.db, threadId, agentId);
      const last = this.stmt.lastTranscriptKey.get(agentId, threadId) as string | null;
      let seq = last ? Number(last.slice('transcript:'.length)) : 0;
      const now = new Date().toISOString();
      for (const m of messages) {
        seq += 1;
        this.stmt.putMemory.run(agentId, threadId, `transcript:${String(seq).padStart(12, '0')}`, JSON.stringify(m), now);
      }
    });
  }

  async readTranscript(threadId: string): Promise<TranscriptMessage[]> {
    return (this.stmt.readTranscript.all(threadId) as string[]).map((v) => JSON.parse(v) as TranscriptMessage);
  }

  async close(): Promise<void> {
    if (!this.db.open) return;
    try {
      this.tasks?.close(); // queues in-progress task updates still waiting for their coalesced write
      this.writes.flush(); // and commits every queued write
    } finally {
      this.db.close();
    }
  }
}

/** Switches `db` to WAL. Switching needs the file to itself, and SQLite answers SQLITE_BUSY at
 * once (no busy handler) while another process opens the same fresh file (`--workers N`
 * starting together): so it is tried again, briefly, up to the busy timeout. */
function enterWalMode(db: Database.Database, busyTimeoutMs: number): void {
  const deadline = Date.now() + busyTimeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10 + Math.floor(Math.random() * 20));
    }
  }
}

/**
 * Opens (creating if needed) the SQLite memory store at `file`. Several handles — in this
 * process or in other processes — may share one file: WAL lets readers run beside the single
 * writer, busy_timeout makes a writer wait for the lock instead of failing, and every write runs
 * in a BEGIN IMMEDIATE transaction so it takes the write lock up front (a deferred transaction
 * that upgrades from read to write would fail with SQLITE_BUSY without waiting).
 */
export function openSqliteStore(
  file: string,
  opts: Partial<LeaseOptions> & { busyTimeoutMs?: number } = {},
): { taskStore(): SqliteTaskStore; pushStore(): PushStore } & MemoryStore {
  const { busyTimeoutMs = BUSY_TIMEOUT_MS, ...lease } = opts;
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file, { timeout: busyTimeoutMs });
  try {
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    enterWalMode(db, busyTimeoutMs);
    // NORMAL is crash-safe in WAL mode (a process crash loses nothing committed; only a power
    // loss may drop the last transactions) and avoids an fsync per commit.
    db.pragma('synchronous = NORMAL');
    migrateSqlite(db, MIGRATIONS, `the memory store ${path.resolve(file)}`);
    // Tasks in progress hold leases (taskStore.ts): TASK_LEASE_MS, 15 s by default.
    return new SqliteMemoryStore(db, { replica: `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`, leaseMs: 15_000, ...lease });
  } catch (err) {
    db.close();
    throw err;
  }
}
