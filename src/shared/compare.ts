// Wire types of run comparison (spec 4.3 rule 5; the field names are ours, documented in
// docs/playground-api.md): GET /compare?left=&right= and GET /runs/{id}/stability.
// `left` is the baseline, `right` the candidate: every delta is right minus left.
import type { RunStatus, ScoreEntry } from './playground.ts';

export type ArrayMode = 'ordered' | 'set';

export interface CompareOptions {
  /** Globs over RFC 6901 paths (`**` any depth, `*` one key or index) whose changes are left out. */
  ignore: string[];
  /** Two numbers within this absolute distance are equal. */
  tolerance: number;
  /** `set`: arrays are compared as multisets (order and position ignored). */
  arrays: ArrayMode;
}

export const DEFAULT_COMPARE_OPTIONS: CompareOptions = { ignore: [], tolerance: 0, arrays: 'ordered' };

/** One JSON change, paths as RFC 6901 pointers: `old` from the left value, `new` from the right. */
export interface JsonChange {
  op: 'add' | 'remove' | 'replace';
  path: string;
  old?: unknown;
  new?: unknown;
}

export interface JsonDiff {
  changes: JsonChange[];
  /** Differences found under ignored paths (left out of `changes`). */
  ignored: number;
  /** More changes than the cap were found; `changes` holds the first ones. */
  truncated: boolean;
}

export interface RunSide {
  run_id: string;
  session_id: string;
  status: RunStatus;
  reason: string | null;
  origin: 'send' | 'resume' | 'rerun';
  parent_run_id: string | null;
  /** Still queued, preparing or running: the comparison is of what it has so far. */
  active: boolean;
  started_at: string | null;
  ended_at: string | null;
  /** Final, or time so far for an active run (`duration_final` false). */
  duration_ms: number | null;
  duration_final: boolean;
  code_fingerprint: string | null;
  /** The registry generation that served it (from its trace), where known. */
  generation: number | null;
}

export type PairStatus = 'equal' | 'changed' | 'added' | 'removed';

export interface TextComparison {
  /** 0-based position among the text parts. */
  index: number;
  status: PairStatus;
  left: string | null;
  right: string | null;
  /** A unified diff (the `diff` package), '' when equal. */
  unified_diff: string;
  lines_added: number;
  lines_removed: number;
  /** The line diff gave up (too different or too large in the time allowed): the whole text changed. */
  diff_timed_out: boolean;
  /** A text streamed so far by an active run, or kept from a cancelled one. */
  left_partial: boolean;
  right_partial: boolean;
}

export interface DataComparison {
  /** How the parts were matched: their `schema` value, or `#n` for the n-th part without one. */
  key: string;
  schema: string | null;
  left_index: number | null;
  right_index: number | null;
  status: PairStatus;
  diff: JsonDiff;
  /** The whole values, for a part present on one side only. */
  left?: unknown;
  right?: unknown;
}

export interface FileMeta {
  name: string | null;
  mime_type: string | null;
  size: number | null;
  sha256: string | null;
  uri: string | null;
  source: 'inline' | 'uri';
}

export interface FileComparison {
  key: string;
  status: PairStatus;
  left: FileMeta | null;
  right: FileMeta | null;
  same_mime_type: boolean | null;
  same_size: boolean | null;
  same_sha256: boolean | null;
  same_uri: boolean | null;
}

export interface PartsComparison {
  equal: boolean;
  text: TextComparison[];
  data: DataComparison[];
  files: FileComparison[];
}

export interface ScoreComparison {
  evaluator: string;
  node: string | null;
  scope: string | null;
  status: PairStatus;
  left_score: number | null;
  right_score: number | null;
  /** right - left, when both are numbers. */
  delta: number | null;
  /** Every key of each entry, unknown keys kept. */
  left: (ScoreEntry & Record<string, unknown>) | null;
  right: (ScoreEntry & Record<string, unknown>) | null;
  /** Keys other than `score` whose values differ. */
  changed_keys: string[];
}

export interface SpanRef {
  span_id: string;
  node: string;
  step: number;
  status: string;
  /** Node names from the top-level node down to this one (subgraphs, fan-out branches). */
  path: string[];
}

export interface Divergence {
  /** Why the two runs part at this node. */
  kind: 'update' | 'status' | 'only_left' | 'only_right';
  node: string;
  step: number;
  path: string[];
  left: SpanRef | null;
  right: SpanRef | null;
  diff: JsonDiff | null;
}

export interface DivergenceReport {
  /** Spans were recorded for both runs (NODE_SPANS=off, or a run that never started, has none). */
  available: boolean;
  /** The first node execution, in graph order (superstep, then node name), that differs. */
  first: Divergence | null;
  only_left: SpanRef[];
  only_right: SpanRef[];
  /** Node executions present in both runs with the same status and update. */
  same: number;
}

export interface CodeFileChange {
  path: string;
  change: 'modified' | 'added' | 'removed';
}

export interface CodeComparison {
  /** Both runs recorded their code (runs that never reached the runtime did not). */
  known: boolean;
  same: boolean | null;
  left_fingerprint: string | null;
  right_fingerprint: string | null;
  /** Files that differ from left to right (added: only the right run had it). */
  changed_files: CodeFileChange[];
  left_generation: number | null;
  right_generation: number | null;
}

export interface RunComparison {
  left: RunSide;
  right: RunSide;
  /** right - left, when both durations are known. */
  duration_delta_ms: number | null;
  /** One of the runs is still active: this compares what it has so far. */
  partial: boolean;
  options: CompareOptions;
  /** True when the outputs, scores and statuses are equal under the options. */
  equal: boolean;
  input: PartsComparison;
  output: PartsComparison;
  scores: ScoreComparison[];
  divergence: DivergenceReport;
  code: CodeComparison;
  /** Always null in v1 (spec 4.3 rule 5). */
  automatic_verdict: null;
}

export interface Variant<T> {
  value: T;
  run_ids: string[];
}

export interface StabilityReport {
  /** The run the others are reruns of (the root of the rerun chain). */
  original_run_id: string;
  /** Ended runs compared, original first. */
  run_ids: string[];
  /** Reruns still active, left out. */
  active_run_ids: string[];
  options: CompareOptions;
  /** Every compared part, score and status is identical across the runs. */
  stable: boolean;
  status: { stable: boolean; variants: Variant<string>[] };
  text: { index: number; stable: boolean; variants: Variant<string | null>[] }[];
  data: { key: string; stable: boolean; stable_paths: number; varying: { path: string; variants: Variant<unknown>[] }[] }[];
  scores: { evaluator: string; stable: boolean; min: number | null; max: number | null; values: { run_id: string; score: number | null }[] }[];
}
