// Experiments in the Playground SQLite (migration 9): the experiment rows and one row per case
// x repeat. Decoded records out, bound values in. A finished experiment is never updated.
import type { AssertionResult } from '../../../shared/datasets.ts';
import type { CaseStatus, ExperimentCase, ExperimentCounts, ExperimentStatus, ExperimentSummary, ModelSettings } from '../../../shared/experiments.ts';
import type { RunStatus, ScoreEntry } from '../../../shared/playground.ts';
import { EventEmitter } from 'node:events';
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/db.ts';

export interface ExperimentRecord {
  experiment_id: string;
  dataset: string;
  dataset_file: string;
  dataset_hash: string;
  status: ExperimentStatus;
  reason: string | null;
  repeat: number;
  concurrency: number;
  cases_filter: string[] | null;
  tags_filter: string[] | null;
  code_fingerprint: string | null;
  code_files: Record<string, string>;
  model: ModelSettings;
  changed_files: string[];
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  /** Set when the experiment came in a bundle (docs/playground-api.md). */
  imported_from?: string | null;
  imported_project?: string | null;
  imported_at?: string | null;
}

/** A case row as a bundle brings it (its run and session already under their new ids). */
export type ImportedCase = Omit<CaseRecord, 'seq' | 'tokens'>;

export interface CaseRecord extends ExperimentCase {
  seq: number;
}

export type CasePatch = Partial<
  Pick<ExperimentCase, 'status' | 'run_id' | 'session_id' | 'run_status' | 'run_reason' | 'error_code' | 'duration_ms' | 'assertions' | 'scores' | 'message'>
>;

interface ExperimentRow extends Omit<ExperimentRecord, 'repeat' | 'cases_filter' | 'tags_filter' | 'code_files' | 'model' | 'changed_files'> {
  repeat_count: number;
  cases_filter: string | null;
  tags_filter: string | null;
  code_files: string;
  model: string;
  changed_files: string;
}

interface CaseRow {
  seq: number;
  case_id: string;
  repeat_index: number;
  description: string | null;
  tags: string;
  input_preview: string;
  status: CaseStatus;
  run_id: string | null;
  session_id: string | null;
  run_status: RunStatus | null;
  run_reason: string | null;
  error_code: string | null;
  duration_ms: number | null;
  assertions: string;
  scores: string;
  message: string | null;
}

const parseOr = <T>(s: string | null, fallback: T): T => (s === null ? fallback : (JSON.parse(s) as T));

function decodeExperiment(r: ExperimentRow): ExperimentRecord {
  const { repeat_count, ...rest } = r;
  return {
    ...rest,
    repeat: repeat_count,
    cases_filter: parseOr<string[] | null>(r.cases_filter, null),
    tags_filter: parseOr<string[] | null>(r.tags_filter, null),
    code_files: parseOr<Record<string, string>>(r.code_files, {}),
    model: JSON.parse(r.model) as ModelSettings,
    changed_files: parseOr<string[]>(r.changed_files, []),
  };
}

function decodeCase(r: CaseRow): CaseRecord {
  const { repeat_index, ...rest } = r;
  return {
    ...rest,
    repeat: repeat_index,
    tags: JSON.parse(r.tags) as string[],
    assertions: JSON.parse(r.assertions) as AssertionResult[],
    scores: JSON.parse(r.scores) as ScoreEntry[],
  };
}

function encodeExperiment(e: ExperimentRecord): Record<string, unknown> {
  return {
    experiment_id: e.experiment_id,
    dataset: e.dataset,
    dataset_file: e.dataset_file,
    dataset_hash: e.dataset_hash,
    status: e.status,
    reason: e.reason,
    repeat_count: e.repeat,
    concurrency: e.concurrency,
    cases_filter: e.cases_filter ? JSON.stringify(e.cases_filter) : null,
    tags_filter: e.tags_filter ? JSON.stringify(e.tags_filter) : null,
    code_fingerprint: e.code_fingerprint,
    code_files: JSON.stringify(e.code_files),
    model: JSON.stringify(e.model),
    changed_files: JSON.stringify(e.changed_files),
    created_at: e.created_at,
    started_at: e.started_at,
    ended_at: e.ended_at,
  };
}

const CASE_JSON = new Set(['assertions', 'scores']);
const EMPTY_COUNTS = (): ExperimentCounts => ({ total: 0, pending: 0, running: 0, passed: 0, failed: 0, error: 0, cancelled: 0 });

export class ExperimentStore {
  private readonly s;
  /** 'change' with the experiment id after every write of it (the progress stream), and
   * 'finished' with it once it has ended. */
  readonly changes = new EventEmitter().setMaxListeners(0);
  private readonly updateCache = new Map<string, Statement<unknown[]>>();

  constructor(private readonly db: Db) {
    const p = <T = unknown>(sql: string) => db.prepare<unknown[], T>(sql);
    this.s = {
      insert: p(`INSERT INTO experiments (experiment_id, dataset, dataset_file, dataset_hash, status, reason, repeat_count, concurrency,
          cases_filter, tags_filter, code_fingerprint, code_files, model, changed_files, created_at, started_at, ended_at)
          VALUES (@experiment_id, @dataset, @dataset_file, @dataset_hash, @status, @reason, @repeat_count, @concurrency, @cases_filter,
          @tags_filter, @code_fingerprint, @code_files, @model, @changed_files, @created_at, @started_at, @ended_at)`),
      insertCase: p(`INSERT INTO experiment_cases (experiment_id, seq, case_id, repeat_index, description, tags, input_preview, status)
          VALUES (?, ?, ?, ?, ?, ?, ?, 'pending')`),
      insertImported: p(`INSERT INTO experiments (experiment_id, dataset, dataset_file, dataset_hash, status, reason, repeat_count, concurrency,
          cases_filter, tags_filter, code_fingerprint, code_files, model, changed_files, created_at, started_at, ended_at, imported_from,
          imported_project, imported_at) VALUES (@experiment_id, @dataset, @dataset_file, @dataset_hash, @status, @reason, @repeat_count,
          @concurrency, @cases_filter, @tags_filter, @code_fingerprint, @code_files, @model, @changed_files, @created_at, @started_at,
          @ended_at, @imported_from, @imported_project, @imported_at)`),
      insertFullCase: p(`INSERT INTO experiment_cases (experiment_id, seq, case_id, repeat_index, description, tags, input_preview, status,
          run_id, session_id, run_status, run_reason, error_code, duration_ms, assertions, scores, message)
          VALUES (@experiment_id, @seq, @case_id, @repeat, @description, @tags, @input_preview, @status, @run_id, @session_id,
          @run_status, @run_reason, @error_code, @duration_ms, @assertions, @scores, @message)`),
      setSession: p('UPDATE sessions SET experiment_id = ? WHERE session_id = ?'),
      get: p<ExperimentRow>('SELECT * FROM experiments WHERE experiment_id = ?'),
      list: p<ExperimentRow>(`SELECT * FROM experiments WHERE (? IS NULL OR dataset = ?) AND (? IS NULL OR experiment_id < ?)
          ORDER BY experiment_id DESC LIMIT ?`),
      running: p<ExperimentRow>("SELECT * FROM experiments WHERE status = 'running'"),
      finish: p("UPDATE experiments SET status = ?, reason = ?, changed_files = ?, ended_at = ? WHERE experiment_id = ? AND status = 'running'"),
      counts: p<{ status: CaseStatus; n: number }>('SELECT status, COUNT(*) AS n FROM experiment_cases WHERE experiment_id = ? GROUP BY status'),
      cases: p<CaseRow>(`SELECT * FROM experiment_cases WHERE experiment_id = ? AND seq > ?
          AND (? = 0 OR status IN ('failed', 'error'))
          AND (? IS NULL OR EXISTS (SELECT 1 FROM json_each(tags) t WHERE t.value = ?)) ORDER BY seq LIMIT ?`),
      allCases: p<CaseRow>('SELECT * FROM experiment_cases WHERE experiment_id = ? ORDER BY seq'),
      cancelPending: p("UPDATE experiment_cases SET status = 'cancelled' WHERE experiment_id = ? AND status IN ('pending', 'running')"),
      sessions: p<{ session_id: string }>('SELECT session_id FROM sessions WHERE experiment_id = ?'),
      remove: p('DELETE FROM experiments WHERE experiment_id = ?'),
      removeCases: p('DELETE FROM experiment_cases WHERE experiment_id = ?'),
      newestFinished: p<ExperimentRow>("SELECT * FROM experiments WHERE dataset = ? AND status = 'completed' ORDER BY experiment_id DESC LIMIT 1"),
    };
  }

  insert(e: ExperimentRecord, cases: { case_id: string; repeat: number; description: string | null; tags: string[]; input_preview: string }[]): void {
    this.db.transaction(() => {
      this.s.insert.run(encodeExperiment(e));
      cases.forEach((c, seq) => this.s.insertCase.run(e.experiment_id, seq + 1, c.case_id, c.repeat, c.description, JSON.stringify(c.tags), c.input_preview));
    })();
  }

  /** A finished experiment from a bundle, its cases and the hidden sessions they ran in;
   * the caller runs it inside its own transaction (with the sessions and runs). */
  insertImported(e: ExperimentRecord, cases: ImportedCase[], sessionIds: string[]): void {
    this.s.insertImported.run({
      ...encodeExperiment(e),
      imported_from: e.imported_from ?? null,
      imported_project: e.imported_project ?? null,
      imported_at: e.imported_at ?? null,
    });
    cases.forEach((c, i) =>
      this.s.insertFullCase.run({
        ...c,
        experiment_id: e.experiment_id,
        seq: i + 1,
        tags: JSON.stringify(c.tags),
        assertions: JSON.stringify(c.assertions),
        scores: JSON.stringify(c.scores),
      }),
    );
    for (const s of sessionIds) this.s.setSession.run(e.experiment_id, s);
  }

  get(id: string): ExperimentRecord | undefined {
    const r = this.s.get.get(id);
    return r ? decodeExperiment(r) : undefined;
  }

  list(dataset: string | null, before: string | null, limit: number): ExperimentRecord[] {
    return this.s.list.all(dataset, dataset, before, before, limit).map(decodeExperiment);
  }

  running(): ExperimentRecord[] {
    return this.s.running.all().map(decodeExperiment);
  }

  newestFinished(dataset: string): ExperimentRecord | undefined {
    const r = this.s.newestFinished.get(dataset);
    return r ? decodeExperiment(r) : undefined;
  }

  /** Ends a running experiment (no-op on a finished one: it is immutable); its pending and
   * running cases become cancelled. Answers whether it ended it. */
  finish(id: string, status: ExperimentStatus, reason: string | null, changedFiles: string[] = []): boolean {
    const ended = this.db.transaction(() => {
      const done = this.s.finish.run(status, reason, JSON.stringify(changedFiles), new Date().toISOString(), id).changes > 0;
      if (done) this.s.cancelPending.run(id);
      return done;
    })();
    if (ended) {
      this.changes.emit('change', id);
      this.changes.emit('finished', id);
    }
    return ended;
  }

  /** Resolves once the experiment is no longer running (at once for a finished or unknown one). */
  whenFinished(id: string): Promise<void> {
    return new Promise((resolve) => {
      const onFinished = (ended: string): void => {
        if (ended !== id) return;
        this.changes.off('finished', onFinished);
        resolve();
      };
      this.changes.on('finished', onFinished);
      if (this.get(id)?.status !== 'running') onFinished(id);
    });
  }

  counts(id: string): ExperimentCounts {
    const c = EMPTY_COUNTS();
    for (const row of this.s.counts.all(id)) {
      c[row.status] = row.n;
      c.total += row.n;
    }
    return c;
  }

  cases(id: string, q: { after: number; failures: boolean; tag: string | null; limit: number }): CaseRecord[] {
    return this.s.cases.all(id, q.after, q.failures ? 1 : 0, q.tag, q.tag, q.limit).map(decodeCase);
  }

  allCases(id: string): CaseRecord[] {
    return this.s.allCases.all(id).map(decodeCase);
  }

  /** Updates a case of a running experiment only (a finished one does not change). */
  updateCase(id: string, seq: number, patch: CasePatch): void {
    const cols: string[] = [];
    const values: unknown[] = [];
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      cols.push(`${k} = ?`);
      values.push(CASE_JSON.has(k) ? JSON.stringify(v) : v);
    }
    if (!cols.length) return;
    // Column names come from the CasePatch type, never from a request; values are bound.
    const sql = `UPDATE experiment_cases SET ${cols.join(', ')} WHERE experiment_id = ? AND seq = ?
        AND EXISTS (SELECT 1 FROM experiments e WHERE e.experiment_id = ? AND e.status = 'running')`;
    // A handful of column sets recur (one per step of a case): each is prepared once.
    let stmt = this.updateCache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare<unknown[]>(sql);
      this.updateCache.set(sql, stmt);
    }
    stmt.run(...values, id, seq, id);
    this.changes.emit('change', id);
  }

  sessionIds(id: string): string[] {
    return this.s.sessions.all(id).map((r) => r.session_id);
  }

  remove(id: string): void {
    this.db.transaction(() => {
      this.s.removeCases.run(id);
      this.s.remove.run(id);
    })();
  }

  summary(e: ExperimentRecord): ExperimentSummary {
    const counts = this.counts(e.experiment_id);
    const ended = counts.passed + counts.failed + counts.error;
    return {
      experiment_id: e.experiment_id,
      dataset: e.dataset,
      dataset_file: e.dataset_file,
      dataset_hash: e.dataset_hash,
      status: e.status,
      reason: e.reason,
      code_fingerprint: e.code_fingerprint,
      repeat: e.repeat,
      concurrency: e.concurrency,
      created_at: e.created_at,
      started_at: e.started_at,
      ended_at: e.ended_at,
      counts,
      pass_rate: ended ? counts.passed / ended : null,
      imported: e.imported_from ? { from_experiment_id: e.imported_from, project: e.imported_project ?? null, at: e.imported_at ?? '' } : null,
    };
  }
}
