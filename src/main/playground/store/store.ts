// The Playground store: sessions, runs, run events and blob references in SQLite
// (better-sqlite3: synchronous, so a check-then-insert inside one transaction cannot
// interleave with another request). Callers get decoded records (records.ts); the SQL is
// in statements.ts.
import type { Page, RunStatus, RunSummary, Session, TaggedPart, TranscriptTurn } from '../../../shared/playground.ts';
import type { Statement } from 'better-sqlite3';
import { openDatabase, schemaVersion, type Db } from './db.ts';
import { decodeRun, encodeRunJson, JSON_PATCH_COLUMNS, toDetail, toSummary, type NewRun, type RunPatch, type RunRecord } from './records.ts';
import { prepareStatements } from './statements.ts';
import { BranchRecords } from './branches.ts';

export { previewOf, toDetail, toSummary, type NewRun, type RunPatch, type RunRecord } from './records.ts';

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

/** A part of a session's conversation: the session's runs, up to `before` (exclusive) when given. */
export interface TranscriptSegment {
  session_id: string;
  before: string | null;
}

/** A session row as the statements give it: `branch_of` is JSON text (or null). */
function decodeSession(row: Session): Session {
  const branchOf = row.branch_of as unknown;
  return { ...row, branch_of: typeof branchOf === 'string' ? (JSON.parse(branchOf) as Session['branch_of']) : null };
}

/** A LIKE pattern matching `text` anywhere, with its own % and _ taken literally. */
const likeAnywhere = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

export class PlaygroundStore {
  private readonly stmts;
  private readonly updateCache = new Map<string, Statement<unknown[]>>();
  /** One transaction wrapper for every call: better-sqlite3 builds four per db.transaction(),
   * which showed in the experiment profile (docs/performance.md, "Experiments"). Nested calls
   * become savepoints, as before. */
  private readonly tx: (fn: () => unknown) => unknown;
  readonly branches: BranchRecords;

  constructor(readonly db: Db) {
    this.stmts = prepareStatements(db);
    this.branches = new BranchRecords(db);
    this.tx = db.transaction((fn: () => unknown) => fn());
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
    return this.tx(fn) as T;
  }

  // Sessions -------------------------------------------------------------------------

  insertSession(id: string, title: string, now: string): Session {
    this.stmts.insertSession.run(id, title, now, now);
    return this.getSession(id)!;
  }

  /** A hidden session running one case of an experiment (left out of listSessions). */
  insertExperimentSession(id: string, title: string, experimentId: string, now: string): void {
    this.stmts.insertExperimentSession.run(id, title, now, now, experimentId);
  }

  getSession(id: string): Session | undefined {
    const row = this.stmts.getSession.get(id) as Session | undefined;
    return row ? decodeSession(row) : undefined;
  }

  /** Inserts a session with its own times (a bundle's session under its new id). */
  insertSessionRecord(s: Pick<Session, 'session_id' | 'title' | 'created_at' | 'updated_at'>): void {
    this.stmts.insertSession.run(s.session_id, s.title, s.created_at, s.updated_at);
  }

  renameSession(id: string, title: string, now: string): void {
    this.stmts.renameSession.run(title, now, id);
  }

  listSessions(q: PageQuery): Page<Session> {
    const rows = (
      q.search
        ? this.stmts.searchSessions.all(q.before, q.before, likeAnywhere(q.search), likeAnywhere(q.search), q.limit + 1)
        : this.stmts.listSessions.all(q.before, q.before, q.limit + 1)
    ).map((r) => decodeSession(r as Session));
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

  activeRuns(): RunRecord[] {
    return this.stmts.activeRuns.all().map(decodeRun);
  }

  insertRun(run: NewRun): void {
    const json = encodeRunJson(run);
    this.stmts.insertRun.run({
      ...run,
      input_parts: json.input_parts,
      metadata: json.metadata,
      changed_files: json.changed_files,
      forked_from: run.forked_from ?? null,
      edited_state: run.edited_state ?? null,
      replay: run.replay ?? null,
    });
  }

  /** Inserts a complete run (a bundle's run under its new id); the caller links its blobs. */
  insertRunRecord(run: RunRecord): void {
    this.stmts.insertFullRun.run({ forked_from: null, edited_state: null, ...run, ...encodeRunJson(run) });
  }

  linkBlob(runId: string, sha256: string, size: number, now: string): void {
    this.stmts.insertBlob.run(sha256, size, now);
    this.stmts.linkBlob.run(runId, sha256);
  }

  /** Every blob the run links (its file parts' and any other, e.g. recorded bodies), sorted. */
  runBlobHashes(runId: string): string[] {
    return this.stmts.runBlobs.all(runId).map((r) => r.sha256);
  }

  /** A run's status alone (no decoding of its row). */
  runStatus(id: string): RunStatus | undefined {
    return this.stmts.runStatus.get(id)?.status;
  }

  getRun(id: string): RunRecord | undefined {
    const row = this.stmts.getRun.get(id);
    return row ? decodeRun(row) : undefined;
  }

  listRuns(sessionId: string, q: PageQuery): Page<RunSummary> {
    const rows = this.stmts.listRuns.all(sessionId, q.before, q.before, q.limit + 1).map(decodeRun);
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
    return this.transcriptOf([{ session_id: sessionId, before: null }], after, limit);
  }

  /** A conversation made of segments, oldest first (a branch: the turns it shares with the
   * sessions it came from, then its own); run ids grow from one segment to the next. */
  transcriptOf(segments: readonly TranscriptSegment[], after: string | null, limit: number): Page<TranscriptTurn> {
    const rows: RunRecord[] = [];
    for (const seg of segments) {
      if (rows.length > limit) break;
      const want = limit + 1 - rows.length;
      const got = seg.before
        ? this.stmts.transcriptBefore.all(seg.session_id, after, after, seg.before, want)
        : this.stmts.transcript.all(seg.session_id, after, after, want);
      rows.push(...got.map(decodeRun));
    }
    const p = page(rows, limit, (r) => r.run_id);
    const items = p.items.map((row): TranscriptTurn => {
      const d = toDetail(row);
      return {
        run_id: d.run_id,
        session_id: d.session_id,
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
    return this.stmts.recentCompletedInputs.all(limit).map((r) => ({ input_parts: JSON.parse(r.input_parts) as TaggedPart[], created_at: r.created_at }));
  }

  /** The conversation a new message in this session continues: the context of its latest run. */
  latestContextId(sessionId: string): string | null {
    return (this.stmts.latestContext.get(sessionId) as { context_id: string } | undefined)?.context_id ?? null;
  }

  /** The session's runs that reached the agent, with their A2A task, oldest first. */
  sessionTasks(sessionId: string): { run_id: string; task_id: string; created_at: string }[] {
    return this.stmts.sessionTasks.all(sessionId) as { run_id: string; task_id: string; created_at: string }[];
  }

  /** A resume child of this run that the agent answered (the question is settled). */
  answeredResume(runId: string): { run_id: string; status: RunStatus } | undefined {
    return this.stmts.answeredBy.get(runId) as { run_id: string; status: RunStatus } | undefined;
  }

  /** Runs made from this one by a resume or a rerun, oldest first. */
  childRuns(parentId: string, origin: 'resume' | 'rerun'): RunRecord[] {
    return this.stmts.childRuns.all(parentId, origin).map(decodeRun);
  }

  updateRun(id: string, patch: RunPatch): void {
    const cols: string[] = [];
    const values: unknown[] = [];
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) continue;
      cols.push(`${key} = ?`);
      values.push(JSON_PATCH_COLUMNS.has(key) ? JSON.stringify(value) : value);
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

  /** Stored events as their wire text (spec 4.3 rule 4: a replay sends the body as stored). */
  readEvents(runId: string, after: number, upTo: number, limit: number): { seq: number; kind: string; body: string }[] {
    return this.stmts.readEvents.all(runId, after, upTo, limit);
  }

  /** Stored events with seq > after, oldest first, decoded; of one kind when `kind` is given
   * (the caller flushes pending ones). `event` is null for a body that is not JSON. */
  readEventObjects(runId: string, q: { after: number; limit: number; kind?: string }): { seq: number; kind: string; event: Record<string, unknown> | null }[] {
    const rows = q.kind
      ? this.stmts.readEventsOfKind.all(runId, q.kind, q.after, q.limit).map((r) => ({ ...r, kind: q.kind! }))
      : this.stmts.readEvents.all(runId, q.after, Number.MAX_SAFE_INTEGER, q.limit);
    return rows.map((r) => ({ seq: r.seq, kind: r.kind, event: decodeEvent(r.body) }));
  }

  maxStoredSeq(runId: string): number {
    return this.stmts.maxSeq.get(runId)!.m ?? 0;
  }
}

function decodeEvent(body: string): Record<string, unknown> | null {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return null;
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
