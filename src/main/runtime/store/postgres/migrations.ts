// Schema of the PostgreSQL memory store: numbered migrations, each recorded with a hash of its
// text, applied once under an advisory lock so replicas starting together do not race
// (docs/deployment.md, "PostgreSQL"). An applied migration whose text changed is refused:
// edit nothing that has shipped, append a new entry instead.
import crypto from 'node:crypto';
import type pg from 'pg';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';

export interface PgMigration {
  name: string;
  /** SQL run in one transaction; `{schema}` is the quoted schema name. */
  sql?: string;
  /** Or a step of its own (it manages its transactions). */
  run?: (pool: pg.Pool, schema: string) => Promise<void>;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    name: 'ownership, persistent memory, durable tasks',
    sql: `
    -- spec 2.4: a thread belongs to exactly one agent; every other row of a thread belongs to
    -- the agent named here, and the management API authorises by it.
    CREATE TABLE {schema}.threads (
      thread_id  TEXT PRIMARY KEY,
      agent_id   TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now()
    );
    CREATE INDEX threads_agent_idx ON {schema}.threads (agent_id, created_at);

    -- Long-term memory of a thread (the running summary, the transcript), a JSON text per key.
    CREATE TABLE {schema}.persistent_memory (
      agent_id   TEXT NOT NULL,
      thread_id  TEXT NOT NULL,
      key        TEXT NOT NULL,
      value      TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (agent_id, thread_id, key)
    );
    CREATE INDEX persistent_memory_thread_idx ON {schema}.persistent_memory (thread_id);

    -- Durable A2A tasks: tasks/get answers on any replica. A task in progress carries the
    -- replica running it and a lease that replica keeps renewing; a lease that runs out means
    -- the replica died, and any replica fails the task (docs/deployment.md).
    CREATE TABLE {schema}.a2a_tasks (
      task_id          TEXT PRIMARY KEY,
      context_id       TEXT,
      state            TEXT,
      task             TEXT NOT NULL,
      updated_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
      replica          TEXT,
      lease_until      TIMESTAMPTZ,
      cancel_requested BOOLEAN NOT NULL DEFAULT false
    );
    CREATE INDEX a2a_tasks_waiting_idx ON {schema}.a2a_tasks (context_id, state, updated_at);
    CREATE INDEX a2a_tasks_lease_idx ON {schema}.a2a_tasks (lease_until) WHERE state IN ('submitted', 'working');
    `,
  },
  {
    name: 'LangGraph checkpoint tables (@langchain/langgraph-checkpoint-postgres)',
    // The saver's own idempotent setup, run while the advisory lock is held.
    run: async (pool, schema) => new PostgresSaver(pool, undefined, { schema }).setup(),
  },
];

/** The hash a migration is recorded with: of its SQL, or for a step of its own, of its name
 * (function text changes with the build, so it cannot be hashed). */
export function migrationHash(m: PgMigration): string {
  return crypto
    .createHash('sha256')
    .update(m.sql ?? `step:${m.name}`)
    .digest('hex');
}

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A stable 64-bit key for pg_advisory_lock, per schema. */
function lockKey(schema: string): string {
  return crypto.createHash('sha256').update(`agent-studio.memory-store:${schema}`).digest().readBigInt64BE(0).toString();
}

/** Brings the schema to the latest version; returns the versions this call applied. */
export async function migrate(pool: pg.Pool, schema: string, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  const q = quoteIdent(schema);
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lockKey(schema)]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${q}.store_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
      const rows = (await client.query<{ version: number; hash: string }>(`SELECT version, hash FROM ${q}.store_migrations ORDER BY version`)).rows;
      const newest = rows.at(-1)?.version ?? 0;
      if (newest > migrations.length) {
        throw new Error(`memory store schema version ${newest} is newer than this runtime supports (${migrations.length}); upgrade the runtime`);
      }
      for (const row of rows) {
        const expected = migrationHash(migrations[row.version - 1]);
        if (row.hash !== expected) {
          throw new Error(`memory store migration ${row.version} was changed after it was applied (recorded hash ${row.hash.slice(0, 12)}, now ${expected.slice(0, 12)}); restore it and add a new migration instead`);
        }
      }
      for (let v = newest + 1; v <= migrations.length; v++) {
        const m = migrations[v - 1];
        if (m.sql) {
          await client.query('BEGIN');
          try {
            await client.query(m.sql.replaceAll('{schema}', q));
            await client.query(`INSERT INTO ${q}.store_migrations (version, name, hash) VALUES ($1, $2, $3)`, [v, m.name, migrationHash(m)]);
            await client.query('COMMIT');
          } catch (err) {
            await client.query('ROLLBACK');
            throw err;
          }
        } else {
          await m.run!(pool, schema);
          await client.query(`INSERT INTO ${q}.store_migrations (version, name, hash) VALUES ($1, $2, $3)`, [v, m.name, migrationHash(m)]);
        }
        applied.push(v);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [lockKey(schema)]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
  return applied;
}
