// PostgreSQL backend of the runtime's memory store (spec 2.3, 2.4, 4.2, 5.3): the same
// interface and behaviour as the SQLite one (store/sqlite.ts), shared by every replica of an
// agent. Checkpoints are LangGraph's own Postgres saver's tables; ownership, persistent
// memory and durable tasks are ours (migrations.ts). Selected with MEMORY_BACKEND=postgres
// and POSTGRES_DSN (docs/deployment.md).
import os from 'node:os';
import crypto from 'node:crypto';
import pg from 'pg';
import type { TaskStore } from '@a2a-js/sdk/server';
import type { DeletedCounts, MemoryStore, ThreadClaim, ThreadCursor, TranscriptMessage } from '../types.ts';
import { claimResult, OwnerCache, type ThreadOwners } from '../owner-cache.ts';
import { migrate, quoteIdent } from './migrations.ts';
import { claimThread, OwnedPostgresSaver } from './checkpointer.ts';
import { PgTaskStore, type LeaseOptions } from './taskStore.ts';
import { pgRuntimeSettings } from './runtime-settings.ts';
import { pgPushStore } from './push.ts';
import type { PushStore } from '../push-store.ts';
import type { RuntimeSettingsStore } from '../runtime-settings.ts';
import { postgresTaskList, type TaskListPage, type TaskListQuery } from '../task-list.ts';
import { redactDsn, scrub } from './dsn.ts';

export interface PostgresStoreOptions {
  dsn: string;
  /** Schema holding the tables (default `public`). */
  schema?: string;
  /** Pool size (default 10). */
  poolMax?: number;
  /** This process's replica id (default host-pid-random). */
  replica?: string;
  /** Task lease length (default 15 s). */
  leaseMs?: number;
  lease?: Pick<LeaseOptions, 'onCancelRequested' | 'onReaped' | 'log'>;
}

/** A connection problem, its message without the DSN's password. */
export class PostgresStoreError extends Error {
  override readonly name = 'PostgresStoreError';
}

class PostgresMemoryStore implements MemoryStore {
  readonly backend = 'postgres' as const;
  private readonly savers = new Map<string, OwnedPostgresSaver>();
  private readonly tasks: PgTaskStore;
  private readonly s: string;
  private readonly owners = new OwnerCache();

  constructor(
    private readonly pool: pg.Pool,
    private readonly schema: string,
    lease: LeaseOptions,
  ) {
    this.s = quoteIdent(schema);
    this.tasks = new PgTaskStore(pool, this.s, lease);
  }

  private q<R extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<pg.QueryResult<R>> {
    return this.pool.query<R>(sql, values);
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
      saver = new OwnedPostgresSaver(this.pool, agentId, this.s, this.schema);
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

  async waitingTask(agentId: string, contextId: string): Promise<string | undefined> {
    const r = await this.q<{ task_id: string }>(
      `SELECT a.task_id FROM ${this.s}.a2a_tasks a JOIN ${this.s}.threads t ON t.thread_id = a.context_id AND t.agent_id = $1
       WHERE a.context_id = $2 AND a.state = 'input-required' ORDER BY a.updated_at DESC LIMIT 1`,
      [agentId, contextId],
    );
    return r.rows[0]?.task_id;
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
    return claimResult(owners, agentId, user, 'inserted' in row && row.inserted);
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
    const counts = await this.tx(async (c) => {
      const counts = await this.deleteWhere(c, 'SELECT $1::text', threadId);
      await c.query(`DELETE FROM ${this.s}.threads WHERE thread_id = $1`, [threadId]);
      return counts;
    });
    this.owners.delete(threadId); // after the commit: a lookup meanwhile may have cached the row
    return counts;
  }

  /** Forgets every cached owner once `write` committed (its rows changed owners). */
  private async afterClear<T>(write: Promise<T>): Promise<T> {
    try {
      return await write;
    } finally {
      this.owners.clear();
    }
  }

  async deleteAllThreads(agentId: string): Promise<DeletedCounts> {
    return this.afterClear(
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
    return this.afterClear(
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
    await this.tx(async (c) => {
      await this.claim(c, threadId, agentId);
      await c.query(
        `INSERT INTO ${this.s}.persistent_memory (agent_id, thread_id, key, value, updated_at) VALUES ($1, $2, $3, $4, now())
         ON CONFLICT (agent_id, thread_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
        [agentId, threadId, key, json],
      );
    });
  }

  async appendTranscript(agentId: string, threadId: string, messages: TranscriptMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.tx(async (c) => {
      await this.claim(c, threadId, agentId);
      // Serialises appends to one thread across replicas (the sequence is read, then written).
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`transcript:${threadId}`]);
      const last = (
        await c.query<{ k: string | null }>(
          `SELECT max(key) AS k FROM ${this.s}.persistent_memory WHERE agent_id = $1 AND thread_id = $2 AND key >= 'transcript:' AND key < 'transcript;'`,
          [agentId, threadId],
        )
      ).rows[0]?.k;
      let seq = last ? Number(last.slice('transcript:'.length)) : 0;
      const keys: string[] = [];
      const values: string[] = [];
      for (const m of messages) {
        seq += 1;
        keys.push(`transcript:${String(seq).padStart(12, '0')}`);
        values.push(JSON.stringify(m));
      }
      await c.query(
        `INSERT INTO ${this.s}.persistent_memory (agent_id, thread_id, key, value, updated_at)
         SELECT $1, $2, k, v, now() FROM unnest($3::text[], $4::text[]) AS x(k, v)`,
        [agentId, threadId, keys, values],
      );
    });
  }

  async readTranscript(threadId: string): Promise<TranscriptMessage[]> {
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
  const schema = o.schema ?? 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new PostgresStoreError(`POSTGRES_SCHEMA '${schema}' is not a plain identifier (letters, digits, _)`);
  const pool = new pg.Pool({ connectionString: o.dsn, max: o.poolMax ?? 10, connectionTimeoutMillis: 5_000, application_name: 'agent-studio-runtime' });
  // An idle client that errors (the server restarted) must not end the process.
  pool.on('error', (err) => o.lease?.log?.warn({ err: scrub(err.message, o.dsn) }, 'PostgreSQL connection lost; the pool reconnects'));
  // Nor one checked out (a transaction, a checkpoint write) whose connection drops: node-postgres
  // emits 'error' on it besides failing its query, and an 'error' nobody listens to is thrown.
  // The query's own failure is what the caller sees (store/guard.ts); the pool drops the client.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    await migrate(pool, schema);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new PostgresStoreError(`cannot open the PostgreSQL memory store at ${redactDsn(o.dsn)}: ${scrub((err as Error).message, o.dsn)}`);
  }
  return new PostgresMemoryStore(pool, schema, { replica: o.replica ?? defaultReplicaId(), leaseMs: o.leaseMs ?? 15_000, ...o.lease }) as MemoryStore & {
    taskStore(): PgTaskStore;
    pushStore(): PushStore;
  };
}
