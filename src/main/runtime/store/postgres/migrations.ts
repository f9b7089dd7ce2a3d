// Schema of the PostgreSQL memory store: numbered migrations applied by the shared runner
// (common/migrations: a hash per applied migration, each in a transaction, under an advisory
// lock so replicas starting together do not race; docs/deployment.md, "PostgreSQL"). Never
// edit an entry that has shipped: append the next number.
import type pg from 'pg';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { migratePostgres, quoteIdent, type PgMigration } from '../../../common/migrations/postgres.ts';

export { quoteIdent, type PgMigration };

export const PG_MIGRATIONS: readonly PgMigration[] = [
  {
    version: 1,
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
    version: 2,
    name: 'LangGraph checkpoint tables (@langchain/langgraph-checkpoint-postgres)',
    // The saver's own setup (it keeps its own ledger, checkpoint_migrations), run on the
    // migration's connection inside its transaction.
    step: async (tx) => new PostgresSaver(tx.asPool(), undefined, { schema: tx.schema }).setup(),
  },
  {
    version: 3,
    name: 'threads user column',
    // docs/security.md, "Whose conversation is whose": the user (principal) a thread belongs
    // to, beside its agent. Existing threads, and threads written while caller authentication
    // is off, belong to the empty user '' (anonymous). docs/decisions.md D-47.
    sql: `
    ALTER TABLE {schema}.threads ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
    CREATE INDEX threads_user_idx ON {schema}.threads (agent_id, user_id, created_at);
    `,
  },
  {
    version: 4,
    name: 'finished a2a_tasks by age',
    // docs/deployment.md, "Retention": the sweep deletes the oldest finished tasks a batch at a
    // time; this index finds them without reading the tasks still in progress.
    sql: `
    CREATE INDEX a2a_tasks_finished_idx ON {schema}.a2a_tasks (updated_at) WHERE state IN ('completed', 'failed', 'canceled', 'rejected');
    `,
  },
  {
    version: 5,
    name: 'runtime_settings',
    // Settings changed through the management API (card URL, memory settings), per agent, so
    // every replica applies them and a restart keeps them (docs/management-api.md, "Runtime
    // settings"). value is JSON text.
    sql: `
    CREATE TABLE {schema}.runtime_settings (
      agent_id   TEXT NOT NULL,
      key        TEXT NOT NULL,
      value      TEXT NOT NULL,
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_by TEXT,
      PRIMARY KEY (agent_id, key)
    );
    `,
  },
  {
    version: 6,
    name: 'push notifications: configurations and outbox',
    // docs/a2a-conformance.md, "Push notifications" (D-90): a task's webhook configurations
    // (JSON text: id, url, token, authentication), and the outbox of notifications to send,
    // each claimed by one replica at a time with a lease, the way tasks are.
    sql: `
    CREATE TABLE {schema}.push_configs (
      task_id    TEXT NOT NULL,
      config_id  TEXT NOT NULL,
      config     TEXT NOT NULL,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      PRIMARY KEY (task_id, config_id)
    );
    CREATE TABLE {schema}.push_outbox (
      id          BIGSERIAL PRIMARY KEY,
      task_id     TEXT NOT NULL,
      config_id   TEXT NOT NULL,
      event_key   TEXT NOT NULL,
      config      TEXT NOT NULL,
      body        TEXT NOT NULL,
      status      TEXT NOT NULL DEFAULT 'pending',
      attempts    INTEGER NOT NULL DEFAULT 0,
      next_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
      claimed_by  TEXT,
      lease_until TIMESTAMPTZ,
      last_error  TEXT,
      created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
      done_at     TIMESTAMPTZ,
      UNIQUE (task_id, config_id, event_key)
    );
    CREATE INDEX push_outbox_due_idx ON {schema}.push_outbox (next_at) WHERE status = 'pending';
    `,
  },
];

/** Brings the schema to the latest version; returns the versions this call applied. */
export function migrate(pool: pg.Pool, schema: string, migrations: readonly PgMigration[] = PG_MIGRATIONS): Promise<number[]> {
  return migratePostgres(pool, schema, migrations);
}
