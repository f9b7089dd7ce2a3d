// Schema of the runtime's SQLite memory store (sqlite.ts): numbered migrations applied by the
// shared runner (common/migrations/sqlite.ts), each in its own transaction and recorded with
// its hash in schema_version.
import type { SqliteMigration } from '../../common/migrations/sqlite.ts';

/**
 * Numbered schema migrations, applied by the shared runner (common/migrations): never edit an
 * applied entry, append the next number instead.
 */
export const MIGRATIONS: readonly SqliteMigration[] = [
  {
    version: 1,
    name: 'initial schema',
    sql: `
  -- Ownership (spec 2.4: a thread belongs to exactly one agent). Every other table's rows of a
  -- thread belong to the agent named here; the management API authorises by this row (5.3).
  CREATE TABLE threads (
    thread_id  TEXT PRIMARY KEY NOT NULL,
    agent_id   TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX threads_agent_idx ON threads (agent_id, created_at);

  -- One row per checkpoint, without its channel values (those live in checkpoint_blobs).
  -- The primary key doubles as the index that finds the latest checkpoint of a
  -- (thread, namespace): checkpoint ids are uuid6, so they sort by creation time.
  -- channel_versions is a JSON copy of the checkpoint's versions, readable synchronously
  -- inside the read transaction that collects the blobs.
  CREATE TABLE checkpoints (
    thread_id            TEXT NOT NULL,
    checkpoint_ns        TEXT NOT NULL DEFAULT '',
    checkpoint_id        TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    type                 TEXT NOT NULL,
    checkpoint           BLOB NOT NULL,
    channel_versions     TEXT NOT NULL,
    metadata             TEXT NOT NULL,
    created_at           TEXT NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
  );

  -- Channel values, written once per (channel, version): an unchanged channel is not copied
  -- into every checkpoint. type 'empty' marks a channel that has a version but no value.
  CREATE TABLE checkpoint_blobs (
    thread_id     TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    channel       TEXT NOT NULL,
    version       TEXT NOT NULL,
    type          TEXT NOT NULL,
    blob          BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
  );

  -- Pending writes of the tasks of a checkpoint (what interrupt()/resume and crash recovery
  -- re-load). idx < 0 marks the special channels of WRITES_IDX_MAP (error, interrupt, ...).
  CREATE TABLE checkpoint_writes (
    thread_id     TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    task_id       TEXT NOT NULL,
    idx           INTEGER NOT NULL,
    channel       TEXT NOT NULL,
    type          TEXT NOT NULL,
    blob          BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
  );

  -- Long-term memory of a thread (e.g. the running summary), a JSON value per key.
  CREATE TABLE persistent_memory (
    agent_id   TEXT NOT NULL,
    thread_id  TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (agent_id, thread_id, key)
  );
  CREATE INDEX persistent_memory_thread_idx ON persistent_memory (thread_id);

  -- Durable A2A tasks, so tasks/get answers after a restart.
  CREATE TABLE a2a_tasks (
    task_id    TEXT PRIMARY KEY NOT NULL,
    context_id TEXT,
    task       TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  `,
  },
  {
    version: 2,
    name: 'a2a_tasks by context',
    // A message on a contextId without a taskId continues the task waiting for input there.
    sql: `
  CREATE INDEX a2a_tasks_context_idx ON a2a_tasks (context_id, updated_at);
  `,
  },
  {
    version: 3,
    name: 'a2a_tasks state column',
    // The task's state in a real column. Queries never parse stored task documents with
    // SQLite's JSON functions: a document they cannot read (nested past their 1,000-level
    // limit) made every later message on its context fail. Existing rows are read in JS.
    sql: `
      ALTER TABLE a2a_tasks ADD COLUMN state TEXT;
      DROP INDEX a2a_tasks_context_idx;
      CREATE INDEX a2a_tasks_waiting_idx ON a2a_tasks (context_id, state, updated_at);
    `,
    step: (db) => {
      const set = db.prepare('UPDATE a2a_tasks SET state = ? WHERE task_id = ?');
      // All rows first: better-sqlite3 cannot write on a connection while it iterates a query.
      for (const row of db.prepare('SELECT task_id, task FROM a2a_tasks').all() as { task_id: string; task: string }[]) {
        set.run(taskState(row.task), row.task_id);
      }
    },
  },
  {
    version: 4,
    name: 'threads user column',
    // docs/security.md, "Whose conversation is whose": the user (principal) a thread belongs
    // to, beside its agent. Existing threads, and threads written while caller authentication
    // is off, belong to the empty user '' (anonymous). docs/decisions.md D-47.
    sql: `
      ALTER TABLE threads ADD COLUMN user_id TEXT NOT NULL DEFAULT '';
      CREATE INDEX threads_user_idx ON threads (agent_id, user_id, created_at);
    `,
  },
  {
    version: 5,
    name: 'finished a2a_tasks by age',
    // docs/deployment.md, "Retention": the sweep deletes the oldest finished tasks a batch at a
    // time; this index finds them without reading the tasks still in progress.
    sql: `
      CREATE INDEX a2a_tasks_finished_idx ON a2a_tasks (updated_at) WHERE state IN ('completed', 'failed', 'canceled', 'rejected');
    `,
  },
  {
    version: 6,
    name: 'a2a_tasks leases (replicas on one file)',
    // docs/deployment.md, "Replicas": the PostgreSQL lease design on SQLite, for `--workers N`
    // and other processes sharing one file. A task in progress names the replica running it
    // and a lease (epoch milliseconds) that replica renews; a cancel asked by another process
    // is a flag the running one sees at its next renewal. Rows written before have no lease
    // and are never reaped.
    sql: `
      ALTER TABLE a2a_tasks ADD COLUMN replica TEXT;
      ALTER TABLE a2a_tasks ADD COLUMN lease_until INTEGER;
      ALTER TABLE a2a_tasks ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX a2a_tasks_lease_idx ON a2a_tasks (lease_until) WHERE state IN ('submitted', 'working');
    `,
  },
  {
    version: 7,
    name: 'runtime_settings',
    // Settings changed through the management API (card URL, memory settings), per agent, so
    // every replica on the store applies them and a restart keeps them (docs/management-api.md,
    // "Runtime settings"). value is JSON.
    sql: `
      CREATE TABLE runtime_settings (
        agent_id   TEXT NOT NULL,
        key        TEXT NOT NULL,
        value      TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        updated_by TEXT,
        PRIMARY KEY (agent_id, key)
      );
    `,
  },
  {
    version: 8,
    name: 'push notifications: configurations and outbox',
    // docs/a2a-conformance.md, "Push notifications" (D-90): a task's webhook configurations
    // (JSON: id, url, token, authentication), and the outbox of notifications to send, each
    // claimed by one replica at a time with a lease (epoch milliseconds), the way tasks are.
    sql: `
      CREATE TABLE push_configs (
        task_id    TEXT NOT NULL,
        config_id  TEXT NOT NULL,
        config     TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (task_id, config_id)
      );
      CREATE TABLE push_outbox (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        task_id     TEXT NOT NULL,
        config_id   TEXT NOT NULL,
        event_key   TEXT NOT NULL,
        config      TEXT NOT NULL,
        body        TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'pending',
        attempts    INTEGER NOT NULL DEFAULT 0,
        next_at     INTEGER NOT NULL,
        claimed_by  TEXT,
        lease_until INTEGER,
        last_error  TEXT,
        created_at  INTEGER NOT NULL,
        done_at     INTEGER,
        UNIQUE (task_id, config_id, event_key)
      );
      CREATE INDEX push_outbox_due_idx ON push_outbox (next_at) WHERE status = 'pending';
    `,
  },
];

/** The status.state of a stored task document, or null when it cannot be read. */
function taskState(doc: string): string | null {
  try {
    const state = (JSON.parse(doc) as { status?: { state?: unknown } }).status?.state;
    return typeof state === 'string' ? state : null;
  } catch {
    return null;
  }
}
