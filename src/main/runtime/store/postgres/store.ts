// PostgreSQL backend of the runtime's memory store (spec 2.3, 2.4, 4.2, 5.3): the same
// interface and behaviour as the SQLite one (store/sqlite.ts), shared by every replica of an
// agent. Checkpoints are LangGraph's own Postgres saver's tables; ownership, persistent
// memory and durable tasks are ours (migrations.ts). Selected with MEMORY_BACKEND=postgres
// and POSTGRES_DSN (docs/deployment.md).
import os from 'node:os';
import crypto from 'node:crypto';
import pg from 'pg';
import type { TaskStore } from '@a2a-js/sdk/server';
import { ThreadOwnershipError, type DeletedCounts, type MemoryStore, type ThreadClaim, type ThreadCursor, type TranscriptMessage } from '../types.ts';
import { claimResult, OwnerCache, type ThreadOwners } from '../owner-cache.ts';
import { quoteIdent } from './migrations.ts';
import { claimThread, OwnedPostgresSaver } from './checkpointer.ts';
import { PgTaskStore, type LeaseOptions } from './taskStore.ts';
import { pgRuntimeSettings } from './runtime-settings.ts';
import { pgPushStore } from './push.ts';
import type { PushStore } from '../push-store.ts';
import type { RuntimeSettingsStore } from '../runtime-settings.ts';
import { postgresTaskList, type TaskListPage, type TaskListQuery } from '../task-list.ts';
import { openPool, type PostgresStoreOptions } from './pool.ts';
import { PgEndBatch } from './end-batch.ts';
import { ThreadCache } from './thread-cache.ts';
import { appendTranscriptAlone, HEAD_SQL } from './transcript.ts';
import { SUMMARY_KEY } from '../../memory/fold.ts';

export { PostgresStoreError, type PostgresStoreOptions } from './pool.ts';

class PostgresMemoryStore implements MemoryStore {
  readonly backend = 'postgres' as const;
  private readonly savers = new Map<string, OwnedPostgresSaver>();
  private readonly tasks: PgTaskStore;
  private readonly s: string;
  private readonly owners = new OwnerCache();
  private readonly batch: PgEndBatch;
  private readonly cache = new ThreadCache();
  private readonly headSql: { name: string; text: string };

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    lease: LeaseOptions,
  ) {
    this.s = quoteIdent(schema);
    this.batch = new PgEndBatch(pool, this.s, lease);
    this.tasks = new PgTaskStore(pool, this.s, lease, this.batch);
    this.headSql = { name: `head-${this.s}`, text: HEAD_SQL(this.s) };
  }

  /** Writes of `threadId` still queued (D-84) are committed before it is read or changed otherwise. */
  private async settled(threadId?: string): Promise<void> {
    if (threadId === undefined || this.batch.pending(threadId)) await this.batch.flush();
  }

  private q<R extends pg.QueryResultRow>(sql: string | { name: string; text: string }, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    return typeof sql === 'string' ? this.pool.query<R>(sql, values) : this.pool.query<R>({ ...sql, values });
  }

  /** Runs `fn` in one transaction on one connection. */
  private async tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.pool.connect();
    try {
      await c.query('BEGIN');
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      c.release();
    }
  }

  private claim(c: pg.PoolClient, threadId: string, agentId: string): Promise<void> {
    return claimThread(c, this.s, threadId, agentId);
  }

  checkpointer(agentId: string): OwnedPostgresSaver {
    let saver = this.savers.get(agentId);
    if (!saver) {
      saver = new OwnedPostgresSaver(this.pool, agentId, this.s, this.schema, this.batch, this.cache);
      this.savers.set(agentId, saver);
    }
    return saver;
  }

  taskStore(): TaskStore & PgTaskStore {
    return this.tasks;
  }

  runtimeSettings(): RuntimeSettingsStore {
    return pgRuntimeSettings(this.pool, this.s);
  }

  /** Push-notification configurations and outbox (../push-store.ts). */
  pushStore(): PushStore {
    return pgPushStore(this.pool, this.s);
  }

  /** Asked before every warm message: the same round trip reads the thread's head, which
   * the turn's reads of its latest checkpoint and summary then use (D-85). */
  async waitingTask(agentId: string, contextId: string): Promise<string | undefined> {
    await this.settled(contextId);
    type Head = { task_id: string | null; owner: string | null; checkpoint_id: string | null; summary: string | null };
    const row = (await this.q<Head>(this.headSql, [agentId, contextId])).rows[0];
    if (row) this.cache.setHead(contextId, { owner: row.owner, checkpointId: row.checkpoint_id, summary: row.summary });
    return row?.task_id ?? undefined;
  }

  async listTasks(agentId: string, query: TaskListQuery): Promise<TaskListPage> {
    return postgresTaskList((sql, values) => this.q(sql, values), this.s)(agentId, query);
  }

  async waitingTaskCount(agentId: string): Promise<number> {
    const r = await this.q<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${this.s}.a2a_tasks a JOIN ${this.s}.threads t ON t.thread_id = a.context_id AND t.agent_id = $1
       WHERE a.state = 'input-required'`,
      [agentId],
    );
    return r.rows[0]?.n ?? 0;
  }

  async ping(): Promise<void> {
    await this.q('SELECT 1');
  }

  async listThreads(agentId: string, user?: string): Promise<string[]> {
    const r =
      user === undefined
        ? await this.q<{ thread_id: string }>(`SELECT thread_id FROM ${this.s}.threads WHERE agent_id = $1 ORDER BY created_at, thread_id`, [agentId])
        : await this.q<{ thread_id: string }>(`SELECT thread_id FROM ${this.s}.threads WHERE agent_id = $1 AND user_id = $2 ORDER BY created_at, thread_id`, [
            agentId,
            user,
          ]);
    return r.rows.map((row) => row.thread_id);
  }

  /** A page (management/thread-pages.ts): created_at to the microsecond in UTC, so that the cursor compares exactly. */
  async listThreadPage(agentId: string, page: { user?: string; limit: number; after?: ThreadCursor }): Promise<ThreadCursor[]> {
    const { user, limit, after } = page;
    const r = await this.q<ThreadCursor>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAt", thread_id AS "threadId" FROM ${this.s}.threads
        WHERE agent_id = $1 AND ($2::text IS NULL OR user_id = $2) AND (created_at, thread_id) > ($3::timestamptz, $4) ORDER BY created_at, thread_id LIMIT $5`,
      [agentId, user ?? null, after?.createdAt ?? '-infinity', after?.threadId ?? '', limit],
    );
    return r.rows;
  }

  async claimThread(agentId: string, threadId: string, user: string): Promise<ThreadClaim> {
    const known = this.owners.get(threadId);
    if (known) return claimResult(known, agentId, user, false);
    // One round trip: claim when free, else read the owners. A claim committed by another
    // replica after this statement's snapshot shows no row; a second statement sees it.
    const r = await this.q<ThreadOwners & { inserted: boolean }>(
      `WITH ins AS (
         INSERT INTO ${this.s}.threads (thread_id, agent_id, user_id) VALUES ($1, $2, $3) ON CONFLICT (thread_id) DO NOTHING RETURNING agent_id, user_id
       )
       SELECT agent_id AS "agentId", user_id AS "user", true AS inserted FROM ins
       UNION ALL SELECT agent_id, user_id, false FROM ${this.s}.threads WHERE thread_id = $1 LIMIT 1`,
      [threadId, agentId, user],
    );
    const row = r.rows[0] ?? (await this.readOwners(threadId));
    if (!row) return 'other';
    const owners = { agentId: row.agentId, user: row.user };
    this.owners.set(threadId, owners);
    // A thread just claimed has no checkpoint and no summary yet: its first turn reads nothing.
    if ('inserted' in row && row.inserted) this.cache.setHead(threadId, { owner: agentId, checkpointId: null, summary: null });
    return claimResult(owners, agentId, user, 'inserted' in row && row.inserted);
  }

  /** A thread id just made here: like a fresh claim, its first turn reads nothing (the turn's
   * end claims it in its batch, D-84). */
  newThread(agentId: string, threadId: string): void {
    this.cache.setHead(threadId, { owner: agentId, checkpointId: null, summary: null });
  }

  async threadUser(agentId: string, threadId: string): Promise<string | null> {
    const owners = this.owners.get(threadId) ?? (await this.readOwners(threadId));
    if (owners) this.owners.set(threadId, owners);
    return owners && owners.agentId === agentId ? owners.user : null;
  }

  private async readOwners(threadId: string): Promise<ThreadOwners | undefined> {
    return (await this.q<ThreadOwners>(`SELECT agent_id AS "agentId", user_id AS "user" FROM ${this.s}.threads WHERE thread_id = $1`, [threadId])).rows[0];
  }

  async threadOwner(threadId: string): Promise<string | null> {
    return (await this.q<{ agent_id: string }>(`SELECT agent_id FROM ${this.s}.threads WHERE thread_id = $1`, [threadId])).rows[0]?.agent_id ?? null;
  }

  /** Deletes rows of the threads `where` selects (`$1` bound to `arg`), counting each family. */
  private async deleteWhere(c: pg.PoolClient, where: string, arg: string): Promise<DeletedCounts> {
    const count = async (table: string) => (await c.query(`DELETE FROM ${this.s}.${table} WHERE thread_id IN (${where})`, [arg])).rowCount ?? 0;
    return {
      checkpoints: await count('checkpoints'),
      checkpoint_blobs: await count('checkpoint_blobs'),
      checkpoint_writes: await count('checkpoint_writes'),
      persistent_memory: await count('persistent_memory'),
    };
  }

  async deleteThread(threadId: string): Promise<DeletedCounts> {
    await this.settled(threadId);
    this.cache.forget(threadId);
    const counts = await this.tx(async (c) => {
      const counts = await this.deleteWhere(c, 'SELECT $1::text', threadId);
      await c.query(`DELETE FROM ${this.s}.threads WHERE thread_id = $1`, [threadId]);
      return counts;
    });
    this.owners.delete(threadId); // after the commit: a lookup meanwhile may have cached the row
    return counts;
  }

  /** Forgets every cached owner once `write` committed (its rows changed owners). */
  private async afterClear<T>(write: () => Promise<T>): Promise<T> {
    await this.settled();
    try {
      return await write();
    } finally {
      this.owners.clear();
      this.cache.clear();
    }
  }

  async deleteAllThreads(agentId: string): Promise<DeletedCounts> {
    return this.afterClear(() =>
      this.tx(async (c) => {
        // Lock the agent's ownership rows first: a replica claiming a new thread meanwhile waits.
        await c.query(`SELECT thread_id FROM ${this.s}.threads WHERE agent_id = $1 FOR UPDATE`, [agentId]);
        const counts = await this.deleteWhere(c, `SELECT thread_id FROM ${this.s}.threads WHERE agent_id = $1`, agentId);
        await c.query(`DELETE FROM ${this.s}.threads WHERE agent_id = $1`, [agentId]);
        return counts;
      }),
    );
  }

  async migrateAgentId(oldId: string, newId: string): Promise<number> {
    if (oldId === newId) return (await this.listThreads(oldId)).length;
    // The agent of every migrated thread changes; its user stays (docs/security.md).
    return this.afterClear(() =>
      this.tx(async (c) => {
        const threads = (await c.query(`UPDATE ${this.s}.threads SET agent_id = $1 WHERE agent_id = $2`, [newId, oldId])).rowCount ?? 0;
        // A stale row of newId for the same (thread, key) gives way, as on SQLite (OR REPLACE).
        await c.query(
          `DELETE FROM ${this.s}.persistent_memory n USING ${this.s}.persistent_memory o
         WHERE n.agent_id = $1 AND o.agent_id = $2 AND n.thread_id = o.thread_id AND n.key = o.key`,
          [newId, oldId],
        );
        await c.query(`UPDATE ${this.s}.persistent_memory SET agent_id = $1 WHERE agent_id = $2`, [newId, oldId]);
        return threads;
      }),
    );
  }

  async getMemory(agentId: string, threadId: string, key: string): Promise<unknown | undefined> {
    const head = key === SUMMARY_KEY ? this.cache.takeHead(threadId, 'summary') : undefined;
    if (head) return head.owner === agentId && head.summary !== null ? JSON.parse(head.summary) : undefined;
    await this.settled(threadId);
    const r = await this.q<{ value: string }>(`SELECT value FROM ${this.s}.persistent_memory WHERE agent_id = $1 AND thread_id = $2 AND key = $3`, [
      agentId,
      threadId,
      key,
    ]);
    return r.rows[0] ? JSON.parse(r.rows[0].value) : undefined;
  }

  async putMemory(agentId: string, threadId: string, key: string, value: unknown): Promise<void> {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError(`persistent memory value for '${key}' is not JSON-serialisable`);
    await this.settled(threadId);
    this.cache.forget(threadId);
    await this.tx(async (c) => {
      await this.claim(c, threadId, agentId);
      await c.query(
        `INSERT INTO ${this.s}.persistent_memory (agent_id, thread_id, key, value, updated_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (agent_id, thread_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [agentId, threadId, key, json],
      );
    });
  }

  /** A turn's messages (`turn`) go with the turn's end, its task's settling save (D-84). */
  async appendTranscript(agentId: string, threadId: string, messages: TranscriptMessage[], opts?: { turn?: boolean }): Promise<void> {
    if (messages.length === 0) return;
    const alone = () => this.tx((c) => appendTranscriptAlone(c, this.s, agentId, threadId, messages));
    if (!opts?.turn) {
      await this.settled(threadId);
      return alone();
    }
    // Another agent's thread, as the turn's head read it, is refused now, like its checkpoint.
    const owner = this.cache.ownerOf(threadId);
    if (owner && owner !== agentId) throw new ThreadOwnershipError(threadId, owner, agentId);
    this.batch.writeLater({ thread: threadId, agent: agentId, transcript: messages.map((m) => JSON.stringify(m)), slow: alone });
  }

  async readTranscript(threadId: string): Promise<TranscriptMessage[]> {
    await this.settled(threadId);
    const r = await this.q<{ value: string }>(
      `SELECT value FROM ${this.s}.persistent_memory WHERE thread_id = $1 AND key >= 'transcript:' AND key < 'transcript;' ORDER BY key`,
      [threadId],
    );
    return r.rows.map((row) => JSON.parse(row.value) as TranscriptMessage);
  }

  private closing: Promise<void> | null = null;

  /** Idempotent: pending task updates are written, then the pool ends. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.tasks.close();
      } finally {
        await this.pool.end();
      }
    })();
    return this.closing;
  }
}

export function defaultReplicaId(): string {
  return process.env.REPLICA_ID || `${os.hostname()}-${process.pid}-${crypto.randomBytes(3).toString('hex')}`;
}

/** Opens the PostgreSQL memory store: a pool, the schema migrated (once, under an advisory
 * lock). Errors never carry the DSN's password. */
export async function openPostgresStore(o: PostgresStoreOptions): Promise<MemoryStore & { taskStore(): PgTaskStore; pushStore(): PushStore }> {
  const { pool, schema } = await openPool(o);
  return new PostgresMemoryStore(pool, schema, { replica: o.replica ?? defaultReplicaId(), leaseMs: o.leaseMs ?? 15_000, ...o.lease }) as MemoryStore & {
    taskStore(): PgTaskStore;
    pushStore(): PushStore;
  };
}
