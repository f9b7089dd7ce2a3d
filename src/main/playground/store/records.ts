// The Playground store's records as callers get them: a run with its JSON columns decoded
// (parts, scores, metadata, changed files, code files), and the encoding back into columns.
// Only the store modules see the stored text (spec 2.6: a run's stored parts and scores).
import type { RunDetail, RunEdit, RunFork, RunStatus, RunSummary, ScoreEntry, TaggedPart } from '../../../shared/playground.ts';
import type { RunReplay } from '../../../shared/recordings.ts';

/** A run as stored: the JSON columns still text. Read only inside the store. */
export interface RunColumns {
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
  imported_from: string | null;
  imported_project: string | null;
  imported_at: string | null;
  /** JSON of RunFork for a fork's run, else null. */
  forked_from?: string | null;
  /** JSON of RunEdit for a Continue/Step that edited the paused state, else null. */
  edited_state?: string | null;
  /** JSON of RunReplay for a replayed run, else null. */
  replay?: string | null;
}

/** A run as the store hands it out: every stored JSON column decoded. */
export interface RunRecord extends Omit<RunColumns, 'input_parts' | 'output_parts' | 'scores' | 'metadata' | 'changed_files' | 'code_files'> {
  input_parts: TaggedPart[];
  output_parts: TaggedPart[];
  scores: ScoreEntry[];
  metadata: Record<string, unknown>;
  changed_files: string[];
  /** Project-relative path → sha256 of the file the run ran with; null before it ran. */
  code_files: Record<string, string> | null;
}

export type RunPatch = Partial<
  Pick<RunRecord, 'status' | 'reason' | 'context_id' | 'task_id' | 'started_at' | 'ended_at' | 'revision' | 'code_fingerprint'> & {
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
  /** JSON of RunFork, for a fork's run. */
  forked_from?: string | null;
  /** JSON of RunEdit, for a Continue/Step with an edit. */
  edited_state?: string | null;
  /** JSON of RunReplay, for a replayed run. */
  replay?: string | null;
}

/** The columns of a patch that hold JSON text. */
export const JSON_PATCH_COLUMNS: ReadonlySet<string> = new Set(['output_parts', 'scores', 'code_files']);

export function decodeRun(row: RunColumns): RunRecord {
  return {
    ...row,
    input_parts: JSON.parse(row.input_parts) as TaggedPart[],
    output_parts: JSON.parse(row.output_parts) as TaggedPart[],
    scores: JSON.parse(row.scores) as ScoreEntry[],
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    changed_files: JSON.parse(row.changed_files) as string[],
    code_files: row.code_files ? (JSON.parse(row.code_files) as Record<string, string>) : null,
    imported_from: row.imported_from ?? null,
    imported_project: row.imported_project ?? null,
    imported_at: row.imported_at ?? null,
  };
}

/** The JSON columns of a run, encoded for an INSERT. */
export function encodeRunJson(
  run: Pick<RunRecord, 'input_parts' | 'metadata' | 'changed_files'> & Partial<Pick<RunRecord, 'output_parts' | 'scores' | 'code_files'>>,
) {
  return {
    input_parts: JSON.stringify(run.input_parts),
    output_parts: JSON.stringify(run.output_parts ?? []),
    scores: JSON.stringify(run.scores ?? []),
    metadata: JSON.stringify(run.metadata),
    changed_files: JSON.stringify(run.changed_files),
    code_files: run.code_files ? JSON.stringify(run.code_files) : null,
  };
}

/** The first text part of a run's input, on one line, cut at 120 characters. */
export function previewOf(parts: readonly TaggedPart[]): string | null {
  const text = parts.find((p) => p.kind === 'text');
  if (!text || text.kind !== 'text') return null;
  const line = text.text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export function toSummary(run: RunRecord): RunSummary {
  const duration = run.started_at && run.ended_at ? Date.parse(run.ended_at) - Date.parse(run.started_at) : null;
  return {
    run_id: run.run_id,
    session_id: run.session_id,
    parent_run_id: run.parent_run_id,
    origin: run.origin,
    status: run.status,
    reason: run.reason,
    context_id: run.context_id,
    task_id: run.task_id,
    created_at: run.created_at,
    started_at: run.started_at,
    ended_at: run.ended_at,
    duration_ms: duration,
    input_preview: previewOf(run.input_parts),
  };
}

export function toDetail(run: RunRecord): RunDetail {
  return {
    ...toSummary(run),
    input_parts: run.input_parts,
    output_parts: run.output_parts,
    scores: run.scores,
    metadata: run.metadata,
    changed_files: run.changed_files,
    revision: run.revision,
    last_seq: run.last_seq,
    code_fingerprint: run.code_fingerprint ?? null,
    code_files: run.code_files,
    imported: run.imported_from ? { from_run_id: run.imported_from, project: run.imported_project ?? null, at: run.imported_at ?? '' } : null,
    fork: forkOf(run),
    edit: run.edited_state ? (JSON.parse(run.edited_state) as RunEdit) : null,
    replay: run.replay ? (JSON.parse(run.replay) as RunReplay) : null,
  };
}

/** Where a fork's run came from; null for any other run. */
export function forkOf(run: Pick<RunColumns, 'forked_from'>): RunFork | null {
  return run.forked_from ? (JSON.parse(run.forked_from) as RunFork) : null;
}
