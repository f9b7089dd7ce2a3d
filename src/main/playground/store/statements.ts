// The Playground store's SQL, prepared once per connection; every value is bound.
import { ACTIVE_STATES, type RunStatus, type Session } from '../../../shared/playground.ts';
import type { Db } from './db.ts';
import type { RunColumns } from './records.ts';

const ACTIVE_SQL = ACTIVE_STATES.map((s) => `'${s}'`).join(', ');
const SESSION_COLUMNS = `s.session_id, s.title, s.created_at, s.updated_at,
  (SELECT COUNT(*) FROM runs r WHERE r.session_id = s.session_id) AS run_count,
  (SELECT r.status FROM runs r WHERE r.session_id = s.session_id ORDER BY r.run_id DESC LIMIT 1) AS last_run_status,
  (SELECT r.imported_at FROM runs r WHERE r.session_id = s.session_id AND r.imported_from IS NOT NULL ORDER BY r.run_id LIMIT 1) AS imported_at,
  (SELECT r.imported_project FROM runs r WHERE r.session_id = s.session_id AND r.imported_from IS NOT NULL ORDER BY r.run_id LIMIT 1) AS imported_project,
  (SELECT json_extract(r.forked_from, '$.run_id') FROM runs r WHERE r.session_id = s.session_id AND r.forked_from IS NOT NULL ORDER BY r.run_id LIMIT 1) AS forked_from_run_id,
  (SELECT json_object('session_id', b.origin_session_id, 'run_id', b.origin_run_id, 'root_session_id', b.root_session_id)
    FROM session_branches b WHERE b.session_id = s.session_id) AS branch_of,
  (SELECT COUNT(*) FROM session_branches b WHERE b.root_session_id = s.session_id) AS branch_count,
  s.experiment_id`;
/** The sidebar lists root sessions: branches are grouped under theirs. */
/** Nor are the hidden sessions of experiments (docs/playground-api.md, "Datasets and experiments"). */
const NOT_A_BRANCH = 's.experiment_id IS NULL AND NOT EXISTS (SELECT 1 FROM session_branches nb WHERE nb.session_id = s.session_id)';
/** A run input text of the session, or of one of its branches, that matches the bound pattern. */
const INPUT_MATCHES = `EXISTS (SELECT 1 FROM runs r, json_each(r.input_parts) part WHERE (r.session_id = s.session_id
    OR r.session_id IN (SELECT sb.session_id FROM session_branches sb WHERE sb.root_session_id = s.session_id))
  AND json_extract(part.value, '$.kind') = 'text' AND json_extract(part.value, '$.text') LIKE ? ESCAPE '\\')`;
const RUN_INSERT_COLUMNS = `run_id, session_id, parent_run_id, origin, status, reason, context_id, task_id, created_at, started_at,
  ended_at, input_parts, output_parts, scores, metadata, changed_files, revision, last_seq, code_fingerprint, code_files,
  imported_from, imported_project, imported_at, forked_from, edited_state`;

export function prepareStatements(db: Db) {
  const p = <T = unknown>(sql: string) => db.prepare<unknown[], T>(sql);
  return {
    insertSession: p('INSERT INTO sessions (session_id, title, created_at, updated_at) VALUES (?, ?, ?, ?)'),
    insertExperimentSession: p('INSERT INTO sessions (session_id, title, created_at, updated_at, experiment_id) VALUES (?, ?, ?, ?, ?)'),
    getSession: p<Session>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.session_id = ?`),
    listSessions: p<Session>(
      `SELECT ${SESSION_COLUMNS} FROM sessions s WHERE (? IS NULL OR s.session_id < ?) AND ${NOT_A_BRANCH} ORDER BY s.session_id DESC LIMIT ?`,
    ),
    searchSessions: p<Session>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE (? IS NULL OR s.session_id < ?) AND ${NOT_A_BRANCH}
        AND (s.title LIKE ? ESCAPE '\\' OR ${INPUT_MATCHES})
        ORDER BY s.session_id DESC LIMIT ?`),
    renameSession: p('UPDATE sessions SET title = ?, updated_at = ? WHERE session_id = ?'),
    touchSession: p('UPDATE sessions SET updated_at = ? WHERE session_id = ?'),
    deleteSession: p('DELETE FROM sessions WHERE session_id = ?'),
    sessionRunIds: p<{ run_id: string }>('SELECT run_id FROM runs WHERE session_id = ?'),
    sessionBlobs: p<{ sha256: string }>('SELECT DISTINCT b.sha256 FROM run_blobs b JOIN runs r ON r.run_id = b.run_id WHERE r.session_id = ?'),
    deleteSessionEvents: p('DELETE FROM run_events WHERE run_id IN (SELECT run_id FROM runs WHERE session_id = ?)'),
    deleteSessionRunBlobs: p('DELETE FROM run_blobs WHERE run_id IN (SELECT run_id FROM runs WHERE session_id = ?)'),
    deleteSessionRuns: p('DELETE FROM runs WHERE session_id = ?'),
    blobStillUsed: p<{ n: number }>('SELECT COUNT(*) AS n FROM run_blobs WHERE sha256 = ?'),
    deleteBlobRow: p('DELETE FROM blobs WHERE sha256 = ?'),
    insertBlob: p('INSERT OR IGNORE INTO blobs (sha256, size, created_at) VALUES (?, ?, ?)'),
    linkBlob: p('INSERT OR IGNORE INTO run_blobs (run_id, sha256) VALUES (?, ?)'),
    runBlobs: p<{ sha256: string }>('SELECT sha256 FROM run_blobs WHERE run_id = ? ORDER BY sha256'),
    // The one-active-run rule (spec 4.3 rule 2) counts interactive runs only: an experiment's
    // runs (sessions with an experiment_id) coexist with them (docs/playground-api.md).
    activeRun: p<{ run_id: string }>(`SELECT run_id FROM runs WHERE status IN (${ACTIVE_SQL})
        AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = runs.session_id AND s.experiment_id IS NOT NULL) ORDER BY run_id LIMIT 1`),
    activeRuns: p<RunColumns>(`SELECT * FROM runs WHERE status IN (${ACTIVE_SQL}) ORDER BY run_id`),
    insertRun: p(`INSERT INTO runs (run_id, session_id, parent_run_id, origin, status, context_id, task_id, created_at,
        input_parts, metadata, changed_files, revision, forked_from, edited_state, replay) VALUES (@run_id, @session_id, @parent_run_id, @origin, @status,
        @context_id, @task_id, @created_at, @input_parts, @metadata, @changed_files, @revision, @forked_from, @edited_state, @replay)`),
    insertFullRun: p(
      `INSERT INTO runs (${RUN_INSERT_COLUMNS}) VALUES (${RUN_INSERT_COLUMNS.split(',')
        .map((c) => `@${c.trim()}`)
        .join(', ')})`,
    ),
    getRun: p<RunColumns>('SELECT * FROM runs WHERE run_id = ?'),
    runStatus: p<{ status: RunStatus }>('SELECT status FROM runs WHERE run_id = ?'),
    listRuns: p<RunColumns>('SELECT * FROM runs WHERE session_id = ? AND (? IS NULL OR run_id < ?) ORDER BY run_id DESC LIMIT ?'),
    transcript: p<RunColumns>('SELECT * FROM runs WHERE session_id = ? AND (? IS NULL OR run_id > ?) ORDER BY run_id ASC LIMIT ?'),
    /** A session's turns before one of its runs (a branch's shared beginning). */
    transcriptBefore: p<RunColumns>('SELECT * FROM runs WHERE session_id = ? AND (? IS NULL OR run_id > ?) AND run_id < ? ORDER BY run_id ASC LIMIT ?'),
    recentCompletedInputs: p<{ input_parts: string; created_at: string }>(
      `SELECT input_parts, created_at FROM runs WHERE status = 'completed' AND imported_from IS NULL
        AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = runs.session_id AND s.experiment_id IS NOT NULL) ORDER BY run_id DESC LIMIT ?`,
    ),
    sessionTasks: p<{ run_id: string; task_id: string; created_at: string }>(
      'SELECT run_id, task_id, created_at FROM runs WHERE session_id = ? AND task_id IS NOT NULL ORDER BY run_id',
    ),
    latestContext: p<{ context_id: string }>('SELECT context_id FROM runs WHERE session_id = ? AND context_id IS NOT NULL ORDER BY run_id DESC LIMIT 1'),
    answeredBy: p<{ run_id: string; status: RunStatus }>(
      "SELECT run_id, status FROM runs WHERE parent_run_id = ? AND origin = 'resume' AND status IN ('completed', 'input_required') ORDER BY run_id LIMIT 1",
    ),
    insertEvent: p('INSERT INTO run_events (run_id, seq, kind, body) VALUES (?, ?, ?, ?)'),
    setLastSeq: p('UPDATE runs SET last_seq = ? WHERE run_id = ? AND last_seq < ?'),
    childRuns: p<RunColumns>('SELECT * FROM runs WHERE parent_run_id = ? AND origin = ? ORDER BY run_id'),
    readEventsOfKind: p<{ seq: number; body: string }>('SELECT seq, body FROM run_events WHERE run_id = ? AND kind = ? AND seq > ? ORDER BY seq LIMIT ?'),
    readEvents: p<{ seq: number; kind: string; body: string }>(
      'SELECT seq, kind, body FROM run_events WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
    ),
    maxSeq: p<{ m: number | null }>('SELECT MAX(seq) AS m FROM run_events WHERE run_id = ?'),
  };
}
