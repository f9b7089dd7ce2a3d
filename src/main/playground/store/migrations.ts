// Numbered migrations of the Playground store, applied by the shared runner
// (common/migrations/sqlite.ts): each once, in its own transaction, recorded with a hash of
// its SQL; an edited migration is refused at start. Never edit a shipped migration: add the
// next number.
import type { SqliteMigration } from '../../common/migrations/sqlite.ts';

export type Migration = SqliteMigration;

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions_runs_events_blobs',
    sql: `
      CREATE TABLE sessions (
        session_id TEXT PRIMARY KEY,
        title      TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );

      -- spec 2.6: a run carries status, reason, context_id, task_id, stored input and
      -- output parts (tagged parts, JSON) and scores (JSON array of score entries).
      CREATE TABLE runs (
        run_id        TEXT PRIMARY KEY,
        session_id    TEXT NOT NULL REFERENCES sessions(session_id),
        parent_run_id TEXT,
        origin        TEXT NOT NULL,
        status        TEXT NOT NULL,
        reason        TEXT,
        context_id    TEXT,
        task_id       TEXT,
        created_at    TEXT NOT NULL,
        started_at    TEXT,
        ended_at      TEXT,
        input_parts   TEXT NOT NULL,
        output_parts  TEXT NOT NULL DEFAULT '[]',
        scores        TEXT NOT NULL DEFAULT '[]',
        metadata      TEXT NOT NULL DEFAULT '{}',
        changed_files TEXT NOT NULL DEFAULT '[]',
        revision      TEXT,
        last_seq      INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX runs_by_session ON runs(session_id, run_id);
      -- spec 8: one active run per project; this partial index makes the check cheap.
      CREATE INDEX runs_active ON runs(status) WHERE status IN ('queued', 'preparing', 'running');

      -- spec 4.3 rule 4: events keyed by (run_id, seq). body is the complete JSON event as
      -- sent on the wire, so a replay writes stored text without re-serialising it.
      CREATE TABLE run_events (
        run_id TEXT NOT NULL,
        seq    INTEGER NOT NULL,
        kind   TEXT NOT NULL,
        body   TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;

      -- spec 2.6: inline file bytes live in blobs/<sha256>; the database keeps hash and size
      -- here and name, MIME type and source in the tagged part. run_blobs says which runs
      -- reference a blob, so deleting a session can find the orphans (spec 4.3 rule 3).
      CREATE TABLE blobs (
        sha256     TEXT PRIMARY KEY,
        size       INTEGER NOT NULL,
        created_at TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE run_blobs (
        run_id TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        PRIMARY KEY (run_id, sha256)
      ) WITHOUT ROWID;
      CREATE INDEX run_blobs_by_hash ON run_blobs(sha256);
    `,
  },
  {
    version: 2,
    name: 'run_code_fingerprint',
    sql: `
      -- The code a run ran with (docs/studio-api.md): one hash over the project's files, and
      -- each file's sha256 (its content is a blob linked to the run, so it is kept with it).
      ALTER TABLE runs ADD COLUMN code_fingerprint TEXT;
      ALTER TABLE runs ADD COLUMN code_files TEXT;
    `,
  },
  {
    version: 3,
    name: 'runs_by_parent',
    sql: `
      -- Resumes and reruns of a run (answered questions, stability over reruns).
      CREATE INDEX runs_by_parent ON runs(parent_run_id) WHERE parent_run_id IS NOT NULL;
    `,
  },
  {
    version: 4,
    name: 'imported_runs',
    sql: `
      -- A run that came in a bundle (docs/playground-api.md): its id in the bundle, the
      -- project the bundle was exported from, and when it was imported.
      ALTER TABLE runs ADD COLUMN imported_from TEXT;
      ALTER TABLE runs ADD COLUMN imported_project TEXT;
      ALTER TABLE runs ADD COLUMN imported_at TEXT;
    `,
  },
  {
    version: 5,
    name: 'forked_runs',
    sql: `
      -- A fork's run (docs/playground-api.md, "Fork and re-run from a checkpoint"): JSON of
      -- where it came from (run, session, checkpoint, node, the edit as a JSON patch).
      ALTER TABLE runs ADD COLUMN forked_from TEXT;
    `,
  },
  {
    version: 6,
    name: 'session_breakpoints',
    sql: `
      -- Breakpoints belong to a session (docs/playground-api.md, "Breakpoints and stepping"):
      -- a node id as the graph view names it, paused before or after it. Kept when the graph
      -- no longer has the node; removed with the session.
      CREATE TABLE session_breakpoints (
        session_id TEXT NOT NULL REFERENCES sessions(session_id) ON DELETE CASCADE,
        node       TEXT NOT NULL,
        point      TEXT NOT NULL CHECK (point IN ('before', 'after')),
        created_at TEXT NOT NULL,
        PRIMARY KEY (session_id, node, point)
      ) WITHOUT ROWID;
      -- A run paused at a breakpoint that was stopped (its A2A task canceled): it can no
      -- longer be continued, and no longer holds the session.
      CREATE TABLE run_stops (
        run_id     TEXT PRIMARY KEY REFERENCES runs(run_id) ON DELETE CASCADE,
        stopped_at TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 7,
    name: 'run_edits',
    sql: `
      -- A Continue or Step that edited a paused run's state first (docs/playground-api.md,
      -- "Continue with an edited state"): JSON of the paused checkpoint, the node the edit was
      -- applied as, the checkpoint it wrote and the edit as a JSON patch.
      ALTER TABLE runs ADD COLUMN edited_state TEXT;
    `,
  },
  {
    version: 8,
    name: 'session_branches',
    sql: `
      -- A conversation branch (docs/playground-api.md, "Conversation branches"): a session of
      -- its own whose conversation begins with the turns of the session it was branched from,
      -- up to the run whose user turn it edited. Branches are grouped under the root session
      -- (the one that is no branch); a session deleted takes its branches with it.
      CREATE TABLE session_branches (
        session_id        TEXT PRIMARY KEY REFERENCES sessions(session_id) ON DELETE CASCADE,
        origin_session_id TEXT NOT NULL,
        origin_run_id     TEXT NOT NULL,
        root_session_id   TEXT NOT NULL,
        created_at        TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE INDEX session_branches_by_run ON session_branches(origin_run_id);
      CREATE INDEX session_branches_by_origin ON session_branches(origin_session_id);
      CREATE INDEX session_branches_by_root ON session_branches(root_session_id);
    `,
  },
  {
    version: 9,
    name: 'experiments',
    sql: `
      -- Experiments over datasets (docs/playground-api.md, "Datasets and experiments"): each
      -- case x repeat runs in a hidden session of its own, marked with its experiment; such
      -- sessions are left out of the session list and their runs out of the one-active-run check.
      ALTER TABLE sessions ADD COLUMN experiment_id TEXT;
      CREATE INDEX sessions_by_experiment ON sessions(experiment_id) WHERE experiment_id IS NOT NULL;
      CREATE TABLE experiments (
        experiment_id    TEXT PRIMARY KEY,
        dataset          TEXT NOT NULL,
        dataset_file     TEXT NOT NULL,
        dataset_hash     TEXT NOT NULL,
        status           TEXT NOT NULL,
        reason           TEXT,
        repeat_count     INTEGER NOT NULL,
        concurrency      INTEGER NOT NULL,
        cases_filter     TEXT,
        tags_filter      TEXT,
        code_fingerprint TEXT,
        code_files       TEXT NOT NULL DEFAULT '{}',
        model            TEXT NOT NULL,
        changed_files    TEXT NOT NULL DEFAULT '[]',
        created_at       TEXT NOT NULL,
        started_at       TEXT,
        ended_at         TEXT
      );
      CREATE INDEX experiments_by_dataset ON experiments(dataset, experiment_id);
      -- One row per case x repeat, in dataset order (seq); JSON columns: tags, assertions, scores.
      CREATE TABLE experiment_cases (
        experiment_id TEXT NOT NULL REFERENCES experiments(experiment_id) ON DELETE CASCADE,
        seq           INTEGER NOT NULL,
        case_id       TEXT NOT NULL,
        repeat_index  INTEGER NOT NULL,
        description   TEXT,
        tags          TEXT NOT NULL DEFAULT '[]',
        input_preview TEXT NOT NULL DEFAULT '',
        status        TEXT NOT NULL,
        run_id        TEXT,
        session_id    TEXT,
        run_status    TEXT,
        run_reason    TEXT,
        error_code    TEXT,
        duration_ms   INTEGER,
        assertions    TEXT NOT NULL DEFAULT '[]',
        scores        TEXT NOT NULL DEFAULT '[]',
        message       TEXT,
        PRIMARY KEY (experiment_id, seq)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 10,
    name: 'imported_experiments',
    sql: `
      -- An experiment that came in a bundle (docs/playground-api.md, "POST /bundles/import"):
      -- its id in the bundle, the project it came from, and when it was imported.
      ALTER TABLE experiments ADD COLUMN imported_from TEXT;
      ALTER TABLE experiments ADD COLUMN imported_project TEXT;
      ALTER TABLE experiments ADD COLUMN imported_at TEXT;
    `,
  },
  {
    version: 11,
    name: 'run_replay',
    sql: `
      -- A replayed run (docs/playground-api.md, "Replay"): JSON of {from_run_id, on_mismatch},
      -- the run whose recorded calls answered this one's and what a call without a match did.
      ALTER TABLE runs ADD COLUMN replay TEXT;
    `,
  },
  // Numbers 12 to 14 are given to other work in progress; these empty steps stand in for them
  // until it is merged (replace them then: the numbering must run 1, 2, 3, ...).
  {
    version: 12,
    name: 'tool_mocks',
    sql: `
      -- Tool mocks (docs/playground-api.md, "Tool mocks"): a session's, and an experiment's
      -- (applied to each of its cases' runs), as one JSON array of mocks each.
      CREATE TABLE session_mocks (
        session_id TEXT PRIMARY KEY REFERENCES sessions(session_id) ON DELETE CASCADE,
        mocks      TEXT NOT NULL,
        updated_at TEXT NOT NULL
      ) WITHOUT ROWID;
      CREATE TABLE experiment_mocks (
        experiment_id TEXT PRIMARY KEY REFERENCES experiments(experiment_id) ON DELETE CASCADE,
        mocks         TEXT NOT NULL
      ) WITHOUT ROWID;
    `,
  },
];

/** The newest schema this build understands (bundle import refuses newer databases, spec 4.3 rule 7). */
export const SUPPORTED_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;
