// The PostgreSQL memory store's schema under the shared migration runner: a schema made by
// the earlier store (its DDL and ledger rows copied below, as they stood) opens, keeps its
// rows and refuses an edited migration; a newer schema is refused; replicas starting together
// on a fresh schema apply each migration once (the advisory lock).
import crypto from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { BaseMessage } from '@langchain/core/messages';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { openPostgresStore } from '../../src/main/runtime/store/postgres/store.ts';
import { migrate, PG_MIGRATIONS } from '../../src/main/runtime/store/postgres/migrations.ts';
import { cfg, chatGraph, say } from '../../src/main/runtime/store/test-support.ts';
import type { MemoryStore } from '../../src/main/runtime/store/types.ts';
import { dropSchema, ensurePostgres, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';

/** Migration 1 of the earlier store, verbatim; `{schema}` is the quoted schema. */
const LEGACY_MIGRATION_1 = `
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
    `;
const LEGACY_NAMES = ['ownership, persistent memory, durable tasks', 'LangGraph checkpoint tables (@langchain/langgraph-checkpoint-postgres)'];
const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** The schema as the earlier store left it: its ledger, its tables, the saver's tables. */
async function legacySchema(pool: pg.Pool, schema: string): Promise<void> {
  const q = `"${schema}"`;
  await pool.query(`CREATE SCHEMA ${q}`);
  await pool.query(`CREATE TABLE IF NOT EXISTS ${q}.store_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
  await pool.query(LEGACY_MIGRATION_1.replaceAll('{schema}', q));
  await pool.query(`INSERT INTO ${q}.store_migrations (version, name, hash) VALUES (1, $1, $2)`, [LEGACY_NAMES[0], sha256(LEGACY_MIGRATION_1)]);
  await new PostgresSaver(pool, undefined, { schema }).setup();
  await pool.query(`INSERT INTO ${q}.store_migrations (version, name, hash) VALUES (2, $1, $2)`, [LEGACY_NAMES[1], sha256(`step:${LEGACY_NAMES[1]}`)]);
}

/** Rows the earlier store wrote: a thread with a chat turn, a memory value, a waiting task. */
async function legacyRows(pool: pg.Pool, schema: string): Promise<void> {
  const q = `"${schema}"`;
  await pool.query(`INSERT INTO ${q}.threads (thread_id, agent_id) VALUES ('thread-legacy', 'legacy-agent')`);
  await pool.query(`INSERT INTO ${q}.persistent_memory (agent_id, thread_id, key, value) VALUES ('legacy-agent', 'thread-legacy', 'summary', $1)`, [
    JSON.stringify({ text: 'old summary' }),
  ]);
  const task: Task = { kind: 'task', id: 'task-legacy', contextId: 'thread-legacy', status: { state: 'input-required' }, history: [] };
  await pool.query(`INSERT INTO ${q}.a2a_tasks (task_id, context_id, state, task) VALUES ('task-legacy', 'thread-legacy', 'input-required', $1)`, [
    JSON.stringify(task),
  ]);
  await say(chatGraph(new PostgresSaver(pool, undefined, { schema })), 'thread-legacy', 'hi');
}

describe('PostgreSQL memory-store migrations', () => {
  let schema = '';
  let pool: pg.Pool;
  const opened: MemoryStore[] = [];
  beforeAll(() => ensurePostgres(), 30_000);
  beforeEach(() => {
    schema = newSchema('mig');
    pool = new pg.Pool({ connectionString: TEST_DSN, max: 4 });
  });
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    await pool.end();
    await dropSchema(schema);
  });
  const open = async () => {
    const store = await openPostgresStore({ dsn: TEST_DSN, schema, poolMax: 2 });
    opened.push(store);
    return store;
  };

  it('opens a schema made by the earlier store, reads its rows, and refuses an edited migration afterwards', async () => {
    await legacySchema(pool, schema);
    await legacyRows(pool, schema);
    const store = await open();
    expect(await store.listThreads('legacy-agent')).toEqual(['thread-legacy']);
    expect(await store.getMemory('legacy-agent', 'thread-legacy', 'summary')).toEqual({ text: 'old summary' });
    expect(await store.waitingTask('legacy-agent', 'thread-legacy')).toBe('task-legacy');
    expect((await store.taskStore().load('task-legacy'))?.status.state).toBe('input-required');
    const graph = chatGraph(store.checkpointer('legacy-agent'));
    expect(((await graph.getState(cfg('thread-legacy'))).values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['hi', 'reply 1']);
    const ledger = await sql<{ version: number; hash: string }>(`SELECT version, hash FROM "${schema}".store_migrations ORDER BY version`);
    expect(ledger.slice(0, 2)).toEqual([
      { version: 1, hash: sha256(LEGACY_MIGRATION_1) },
      { version: 2, hash: sha256(`step:${LEGACY_NAMES[1]}`) },
    ]);
    expect(ledger.map((m) => m.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));
    // docs/security.md, "Whose conversation is whose": a thread from before the user column
    // belongs to the anonymous user '', so no authenticated principal reads or continues it.
    expect(await store.threadUser('legacy-agent', 'thread-legacy')).toBe('');
    expect(await store.claimThread('legacy-agent', 'thread-legacy', 'alice')).toBe('other');
    expect(await store.listThreads('legacy-agent', '')).toEqual(['thread-legacy']);

    const edited = PG_MIGRATIONS.map((m) => (m.version === 1 ? { ...m, sql: `${m.sql}-- edited\n` } : m));
    await expect(migrate(pool, schema, edited)).rejects.toThrow(
      `migration 1 (ownership, persistent memory, durable tasks) differs from the one applied to the PostgreSQL schema "${schema}"`,
    );
  });

  it('refuses a schema with a migration this build does not know, and leaves it as it was', async () => {
    await migrate(pool, schema);
    const later = PG_MIGRATIONS.length + 1;
    await pool.query(`INSERT INTO "${schema}".store_migrations (version, name, hash) VALUES ($1, 'later', $2)`, [later, 'f'.repeat(64)]);
    await expect(open()).rejects.toThrow(
      `the PostgreSQL schema "${schema}" has migration ${later} applied, newer than this build supports (it knows migrations 1 to ${PG_MIGRATIONS.length})`,
    );
    expect(await sql(`SELECT version FROM "${schema}".store_migrations ORDER BY version`)).toEqual(
      [...PG_MIGRATIONS, { version: later }].map((m) => ({ version: m.version })),
    );
  });

  it('applies each migration once when several replicas start on a fresh schema together', async () => {
    const pools = [0, 1, 2, 3].map(() => new pg.Pool({ connectionString: TEST_DSN, max: 1 }));
    try {
      const applied = await Promise.all(pools.map((p) => migrate(p, schema)));
      expect(applied.flat().sort()).toEqual(PG_MIGRATIONS.map((m) => m.version));
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
    expect(await sql(`SELECT version, name FROM "${schema}".store_migrations ORDER BY version`)).toEqual(
      PG_MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
    );
  });

  it('runs a migration in one transaction: a failing one leaves nothing of itself', async () => {
    const failing = [
      ...PG_MIGRATIONS,
      { version: PG_MIGRATIONS.length + 1, name: 'half', sql: 'CREATE TABLE {schema}.half (x int); CREATE TABLE {schema}.threads (y int);' },
    ];
    await expect(migrate(pool, schema, failing)).rejects.toThrow(/already exists/);
    const tables = await sql<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1', [schema]);
    expect(tables.map((t) => t.table_name)).not.toContain('half');
    expect(await sql(`SELECT version FROM "${schema}".store_migrations ORDER BY version`)).toEqual(PG_MIGRATIONS.map((m) => ({ version: m.version })));
  });
});
