// The Playground store: sessions, runs, run events and blob references in SQLite
// (better-sqlite3: synchronous, so a check-then-insert inside one transaction cannot
// interleave with another request). Statements are prepared once; every value is bound.
import type { Page, RunDetail, RunStatus, RunSummary, ScoreEntry, Session, TaggedPart, TranscriptTurn } from '../../../shared/playground.ts';
import { ACTIVE_STATES } from '../../../shared/playground.ts';
import type { Statement } from 'better-sqlite3';
import { openDatabase, schemaVersion, type Db } from './db.ts';

export interface RunRow {
  run_id: string;
  session_id: string;
  parent_run_id: string | null;
  origin: RunSummary['origin'];
  status: RunStatus;
  reason: string | null;
  context_id: string | null;
  task_id: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  input_parts: string;
  output_parts: string;
  scores: string;
  metadata: string;
  changed_files: string;
  revision: string | null;
  last_seq: number;
  code_fingerprint: string | null;
  /** JSON object: project-relative path → sha256. */
  code_files: string | null;
  imported_from?: string | null;
  imported_project?: string | null;
  imported_at?: string | null;
}

export type RunPatch = Partial<
  Pick<RunRow, 'status' | 'reason' | 'context_id' | 'task_id' | 'started_at' | 'ended_at' | 'revision' | 'code_fingerprint'> & {
    code_files: Record<string, string>;
    output_parts: TaggedPart[];
    scores: ScoreEntry[];
  }
>;

export interface NewRun {
  run_id: string;
  session_id: string;
  parent_run_id: string | null;
  origin: RunSummary['origin'];
  status: RunStatus;
  context_id: string | null;
  task_id: string | null;
  created_at: string;
  input_parts: TaggedPart[];
  metadata: Record<string, unknown>;
  changed_files: string[];
  revision: string | null;
}

export interface StoredEvent {
  run_id: string;
  seq: number;
  kind: string;
  body: string;
}

export interface PageQuery {
  limit: number;
  /** Exclusive upper bound on the id (ids are ULID-based, so they sort by creation). */
  before: string | null;
  /** Sessions only: a text the title or a run's input text contains (case-insensitive). */
  search?: string | null;
}

/** A LIKE pattern matching `text` anywhere, with its own % and _ taken literally. */
const likeAnywhere = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The first text part of a run's input, on one line, cut at 120 characters. */
export function previewOf(parts: readonly TaggedPart[]): string | null {
  const text = parts.find((p) => p.kind === 'text');
  if (!text || text.kind !== 'text') return null;
  const line = text.text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

const ACTIVE_SQL = ACTIVE_STATES.map((s) => `'${s}'`).join(', ');
const SESSION_COLUMNS = `s.session_id, s.title, s.created_at, s.updated_at,
  (SELECT COUNT(*) FROM runs r WHERE r.session_id = s.session_id) AS run_count,
  (SELECT r.status FROM runs r WHERE r.session_id = s.session_id ORDER BY r.run_id DESC LIMIT 1) AS last_run_status`;

export function toSummary(row: RunRow): RunSummary {
  const duration = row.started_at && row.ended_at ? Date.parse(row.ended_at) - Date.parse(row.started_at) : null;
  return {
    run_id: row.run_id,
    session_id: row.session_id,
    parent_run_id: row.parent_run_id,
    origin: row.origin,
    status: row.status,
    reason: row.reason,
    context_id: row.context_id,
    task_id: row.task_id,
    created_at: row.created_at,
    started_at: row.started_at,
    ended_at: row.ended_at,
    duration_ms: duration,
    input_preview: previewOf(JSON.parse(row.input_parts) as TaggedPart[]),
  };
}

export function toDetail(row: RunRow): RunDetail {
  return {
    ...toSummary(row),
    input_parts: JSON.parse(row.input_parts),
    output_parts: JSON.parse(row.output_parts),
    scores: JSON.parse(row.scores),
    metadata: JSON.parse(row.metadata),
    changed_files: JSON.parse(row.changed_files),
    revision: row.revision,
    last_seq: row.last_seq,
    code_fingerprint: row.code_fingerprint ?? null,
    code_files: row.code_files ? (JSON.parse(row.code_files) as Record<string, string>) : null,
    imported: row.imported_from ? { from_run_id: row.imported_from, project: row.imported_project ?? null, at: row.imported_at ?? '' } : null,
  };
}

export class PlaygroundStore {
  private readonly stmts;
  private readonly updateCache = new Map<string, Statement<unknown[]>>();

  constructor(readonly db: Db) {
    const p = <T = unknown>(sql: string) => db.prepare<unknown[], T>(sql);
    this.stmts = {
      insertSession: p('INSERT INTO sessions (session_id, title, created_at, updated_at) VALUES (?, ?, ?, ?)'),
      getSession: p<Session>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE s.session_id = ?`),
      listSessions: p<Session>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE (? IS NULL OR s.session_id < ?) ORDER BY s.session_id DESC LIMIT ?`),
      searchSessions: p<Session>(`SELECT ${SESSION_COLUMNS} FROM sessions s WHERE (? IS NULL OR s.session_id < ?)
        AND (s.title LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM runs r, json_each(r.input_parts) part WHERE r.session_id = s.session_id
          AND json_extract(part.value, '$.kind') = 'text' AND json_extract(part.value, '$.text') LIKE ? ESCAPE '\\'))
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
      activeRun: p<{ run_id: string }>(`SELECT run_id FROM runs WHERE status IN (${ACTIVE_SQL}) ORDER BY run_id LIMIT 1`),
      activeRuns: p<RunRow>(`SELECT * FROM runs WHERE status IN (${ACTIVE_SQL}) ORDER BY run_id`),
      insertRun: p(`INSERT INTO runs (run_id, session_id, parent_run_id, origin, status, context_id, task_id, created_at,
        input_parts, metadata, changed_files, revision) VALUES (@run_id, @session_id, @parent_run_id, @origin, @status,
        @context_id, @task_id, @created_at, @input_parts, @metadata, @changed_files, @revision)`),
      getRun: p<RunRow>('SELECT * FROM runs WHERE run_id = ?'),
      listRuns: p<RunRow>('SELECT * FROM runs WHERE session_id = ? AND (? IS NULL OR run_id < ?) ORDER BY run_id DESC LIMIT ?'),
      transcript: p<RunRow>('SELECT * FROM runs WHERE session_id = ? AND (? IS NULL OR run_id > ?) ORDER BY run_id ASC LIMIT ?'),
      recentCompletedInputs: p<{ input_parts: string; created_at: string }>(
        "SELECT input_parts, created_at FROM runs WHERE status = 'completed' AND imported_from IS NULL ORDER BY run_id DESC LIMIT ?",
      ),
      latestContext: p<{ context_id: string }>(
        'SELECT context_id FROM runs WHERE session_id = ? AND context_id IS NOT NULL ORDER BY run_id DESC LIMIT 1',
      ),
      answeredBy: p<{ run_id: string; status: RunStatus }>(
        "SELECT run_id, status FROM runs WHERE parent_run_id = ? AND origin = 'resume' AND status IN ('completed', 'input_required') ORDER BY run_id LIMIT 1",
      ),
      insertEvent: p('INSERT INTO run_events (run_id, seq, kind, body) VALUES (?, ?, ?, ?)'),
      setLastSeq: p('UPDATE runs SET last_seq = ? WHERE run_id = ? AND last_seq < ?'),
      childRuns: p<RunRow>('SELECT * FROM runs WHERE parent_run_id = ? AND origin = ? ORDER BY run_id'),
      readEventsOfKind: p<{ seq: number; body: string }>('SELECT seq, body FROM run_events WHERE run_id = ? AND kind = ? AND seq > ? ORDER BY seq LIMIT ?'),
      readEvents: p<{ seq: number; kind: string; body: string }>(
        'SELECT seq, kind, body FROM run_events WHERE run_id = ? AND seq > ? AND seq <= ? ORDER BY seq LIMIT ?',
      ),
      maxSeq: p<{ m: number | null }>('SELECT MAX(seq) AS m FROM run_events WHERE run_id = ?'),
    };
  }

  static open(file: string): PlaygroundStore {
    return new PlaygroundStore(openDatabase(file));
  }

  get schemaVersion(): number {
    return schemaVersion(this.db);
  }

  close(): void {
    this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // Sessions -------------------------------------------------------------------------

  insertSession(id: string, title: string, now: string): Session {
    this.stmts.insertSession.run(id, title, now, now);
    return this.getSession(id)!;
  }

  getSession(id: string): Session | undefined {
    return this.stmts.getSession.get(id) as Session | undefined;
  }

  renameSession(id: string, title: string, now: string): void {
    this.stmts.renameSession.run(title, now, id);
  }

  listSessions(q: PageQuery): Page<Session> {
    const rows = (
      q.search
        ? this.stmts.searchSessions.all(q.before, q.before, likeAnywhere(q.search), likeAnywhere(q.search), q.limit + 1)
        : this.stmts.listSessions.all(q.before, q.before, q.limit + 1)
    ) as Session[];
    return page(rows, q.limit, (s) => s.session_id);
  }

  touchSession(id: string, now: string): void {
    this.stmts.touchSession.run(now, id);
  }

  sessionRunIds(id: string): string[] {
    return (this.stmts.sessionRunIds.all(id) as { run_id: string }[]).map((r) => r.run_id);
  }

  /** Deletes the session, its runs, their events and blob references in one transaction,
   * and answers the blob hashes no other session references any more (spec 4.3 rule 3);
   * the caller removes those files after the commit. */
  deleteSession(id: string): { orphanBlobs: string[] } {
    return this.transaction(() => {
      const hashes = (this.stmts.sessionBlobs.all(id) as { sha256: string }[]).map((r) => r.sha256);
      this.stmts.deleteSessionEvents.run(id);
      this.stmts.deleteSessionRunBlobs.run(id);
      this.stmts.deleteSessionRuns.run(id);
      this.stmts.deleteSession.run(id);
      const orphanBlobs = hashes.filter((h) => (this.stmts.blobStillUsed.get(h) as { n: number }).n === 0);
      for (const h of orphanBlobs) this.stmts.deleteBlobRow.run(h);
      return { orphanBlobs };
    });
  }

  // Runs -----------------------------------------------------------------------------

  activeRunId(): string | undefined {
    return (this.stmts.activeRun.get() as { run_id: string } | undefined)?.run_id;
  }

  activeRuns(): RunRow[] {
    return this.stmts.activeRuns.all() as RunRow[];
  }

  insertRun(run: NewRun): void {
    this.stmts.insertRun.run({
      ...run,
      input_parts: JSON.stringify(run.input_parts),
      metadata: JSON.stringify(run.metadata),
      changed_files: JSON.stringify(run.changed_files),
    });
  }

  linkBlob(runId: string, sha256: string, size: number, now: string): void {
    this.stmts.insertBlob.run(sha256, size, now);
    this.stmts.linkBlob.run(runId, sha256);
  }

  getRun(id: string): RunRow | undefined {
    return this.stmts.getRun.get(id) as RunRow | undefined;
  }

  listRuns(sessionId: string, q: PageQuery): Page<RunSummary> {
    const rows = this.stmts.listRuns.all(sessionId, q.before, q.before, q.limit + 1) as RunRow[];
    const p = page(rows, q.limit, (r) => r.run_id);
    const items = p.items.map((row) => {
      const summary = toSummary(row);
      // An input_required run whose question a reply answered is no longer waiting.
      if (row.status === 'input_required') summary.answered_by = this.answeredResume(row.run_id)?.run_id ?? null;
      return summary;
    });
    return { items, next_cursor: p.next_cursor };
  }

  /** The session as a conversation, oldest turn first: each run with its input and output
   * parts (docs/playground-api.md); `after` pages forward. */
  transcript(sessionId: string, after: string | null, limit: number): Page<TranscriptTurn> {
    const rows = this.stmts.transcript.all(sessionId, after, after, limit + 1) as RunRow[];
    const p = page(rows, limit, (r) => r.run_id);
    const items = p.items.map((row): TranscriptTurn => {
      const d = toDetail(row);
      return {
        run_id: d.run_id,
        parent_run_id: d.parent_run_id,
        origin: d.origin,
        status: d.status,
        reason: d.reason,
        created_at: d.created_at,
        duration_ms: d.duration_ms,
        input_parts: d.input_parts,
        output_parts: d.output_parts,
        ...(row.status === 'input_required' ? { answered_by: this.answeredResume(row.run_id)?.run_id ?? null } : {}),
      };
    });
    return { items, next_cursor: p.next_cursor };
  }

  /** The inputs of this project's latest successful runs, newest first (imported runs came
   * from elsewhere and are left out): the composer's suggestions learn from them. */
  recentCompletedInputs(limit: number): { input_parts: TaggedPart[]; created_at: string }[] {
    return this.stmts.recentCompletedInputs
      .all(limit)
      .map((r) => ({ input_parts: JSON.parse(r.input_parts) as TaggedPart[], created_at: r.created_at }));
  }

  /** The conversation a new message in this session continues: the context of its latest run. */
  latestContextId(sessionId: string): string | null {
    return (this.stmts.latestContext.get(sessionId) as { context_id: string } | undefined)?.context_id ?? null;
  }

  /** A resume child of this run that the agent answered (the question is settled). */
  answeredResume(runId: string): { run_id: string; status: RunStatus } | undefined {
    return this.stmts.answeredBy.get(runId) as { run_id: string; status: RunStatus } | undefined;
  }

  /** Runs made from this one by a resume or a rerun, oldest first. */
  childRuns(parentId: string, origin: 'resume' | 'rerun'): RunRow[] {
    return this.stmts.childRuns.all(parentId, origin) as RunRow[];
  }

  updateRun(id: string, patch: RunPatch): void {
    const cols: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      cols.push(`${key} = ?`);
      values.push(key === 'output_parts' || key === 'scores' || key === 'code_files' ? JSON.stringify(value) : value);
    }
    if (cols.length === 0) return;
    // Column names come from the RunPatch type, never from a request; values are bound.
    const sql = `UPDATE runs SET ${cols.join(', ')} WHERE run_id = ?`;
    let stmt = this.updateCache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[]>(sql);
      this.updateCache.set(sql, stmt);
    }
    stmt.run(...values, id);
  }

  // Events ---------------------------------------------------------------------------

  /** Inserts a batch (the caller wraps it in a transaction) and advances runs.last_seq. */
  insertEvents(events: readonly StoredEvent[]): void {
    const last = new Map<string, number>();
    for (const e of events) {
      this.stmts.insertEvent.run(e.run_id, e.seq, e.kind, e.body);
      last.set(e.run_id, e.seq);
    }
    for (const [runId, seq] of last) this.stmts.setLastSeq.run(seq, runId, seq);
  }

  readEvents(runId: string, after: number, upTo: number, limit: number): { seq: number; kind: string; body: string }[] {
    return this.stmts.readEvents.all(runId, after, upTo, limit) as { seq: number; kind: string; body: string }[];
  }

  /** Stored events of one kind with seq > after, oldest first (the caller flushes pending ones). */
  readEventsOfKind(runId: string, kind: string, after: number, limit: number): { seq: number; body: string }[] {
    return this.stmts.readEventsOfKind.all(runId, kind, after, limit) as { seq: number; body: string }[];
  }

  maxStoredSeq(runId: string): number {
    return (this.stmts.maxSeq.get(runId) as { m: number | null }).m ?? 0;
  }
}

function page<T>(rows: T[], limit: number, idOf: (row: T) => string): Page<T> {
  const items = rows.slice(0, limit);
  const more = rows.length > limit;
  return { items, next_cursor: more ? encodeCursor(idOf(items[items.length - 1])) : null };
}

/** Cursors are opaque to clients (docs/playground-api.md): base64url of the last id. */
export function encodeCursor(id: string): string {
  return Buffer.from(id, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string, prefix: 'ses_' | 'run_'): string | null {
  const id = Buffer.from(cursor, 'base64url').toString('utf8');
  return new RegExp(`^${prefix}[0-9A-HJKMNP-TV-Z]{26}$`).test(id) ? id : null;
}
