// Boundary: studio -> renderer. Run comparison (spec 4.3 rule 5; the field names are ours,
// documented in docs/playground-api.md): GET /compare?left=&right= and GET
// /runs/{id}/stability, their query options (parsed strictly by the router) and their replies.
// `left` is the baseline, `right` the candidate: every delta is right minus left.
import { z } from 'zod';
import { UsageDeltaSchema } from './usage.ts';
import { RunOriginSchema, RunStatusSchema, ScoreEntrySchema } from './playground.ts';

export const ArrayModeSchema = z.enum(['ordered', 'set']);
export type ArrayMode = z.infer<typeof ArrayModeSchema>;

/** The comparison options as query parameters: `ignore` given once per glob. */
export const CompareOptionsSchema = z.object({
  /** Globs over RFC 6901 paths (`**` any depth, `*` one key or index) whose changes are left out. */
  ignore: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .pipe(z.array(z.string().min(1, 'an ignore glob must not be empty').max(500)).max(50, 'at most 50 ignore globs')),
  /** Two numbers within this absolute distance are equal. */
  tolerance: z.coerce.number().finite().min(0).max(1e12).default(0),
  /** `set`: arrays are compared as multisets (order and position ignored). */
  arrays: ArrayModeSchema.default('ordered'),
});
export type CompareOptions = z.output<typeof CompareOptionsSchema>;

export const CompareQuerySchema = CompareOptionsSchema.extend({
  left: z.string({ error: 'left (the baseline run id) is required' }),
  right: z.string({ error: 'right (the run compared with it) is required' }),
});

/** The options as a reply echoes them. */
export const CompareOptionsReplySchema = z.object({ ignore: z.array(z.string()), tolerance: z.number(), arrays: ArrayModeSchema });

export const DEFAULT_COMPARE_OPTIONS: CompareOptions = { ignore: [], tolerance: 0, arrays: 'ordered' };

/** One JSON change, paths as RFC 6901 pointers: `old` from the left value, `new` from the right. */
export const JsonChangeSchema = z.object({
  op: z.enum(['add', 'remove', 'replace']),
  path: z.string(),
  old: z.unknown().optional(),
  new: z.unknown().optional(),
});
export type JsonChange = z.infer<typeof JsonChangeSchema>;

export const JsonDiffSchema = z.object({
  changes: z.array(JsonChangeSchema),
  /** Differences found under ignored paths (left out of `changes`). */
  ignored: z.number().int(),
  /** More changes than the cap were found; `changes` holds the first ones. */
  truncated: z.boolean(),
});
export type JsonDiff = z.infer<typeof JsonDiffSchema>;

const nullableString = z.string().nullable();
const nullableNumber = z.number().nullable();
const nullableBoolean = z.boolean().nullable();

export const RunSideSchema = z.object({
  run_id: z.string(),
  session_id: z.string(),
  status: RunStatusSchema,
  reason: nullableString,
  origin: RunOriginSchema,
  parent_run_id: nullableString,
  /** Still queued, preparing or running: the comparison is of what it has so far. */
  active: z.boolean(),
  started_at: nullableString,
  ended_at: nullableString,
  /** Final, or time so far for an active run (`duration_final` false). */
  duration_ms: nullableNumber,
  duration_final: z.boolean(),
  code_fingerprint: nullableString,
  /** The registry generation that served it (from its trace), where known. */
  generation: nullableNumber,
  /** A replayed run: its calls were answered from this recorded run (docs/playground-api.md, "Replay"). */
  replayed_from: nullableString.optional(),
});
export type RunSide = z.infer<typeof RunSideSchema>;

export const PairStatusSchema = z.enum(['equal', 'changed', 'added', 'removed']);
export type PairStatus = z.infer<typeof PairStatusSchema>;

export const TextComparisonSchema = z.object({
  /** 0-based position among the text parts. */
  index: z.number().int(),
  status: PairStatusSchema,
  left: nullableString,
  right: nullableString,
  /** A unified diff (the `diff` package), '' when equal. */
  unified_diff: z.string(),
  lines_added: z.number().int(),
  lines_removed: z.number().int(),
  /** The line diff gave up (too different or too large in the time allowed): the whole text changed. */
  diff_timed_out: z.boolean(),
  /** A text streamed so far by an active run, or kept from a cancelled one. */
  left_partial: z.boolean(),
  right_partial: z.boolean(),
});
export type TextComparison = z.infer<typeof TextComparisonSchema>;

export const DataComparisonSchema = z.object({
  /** How the parts were matched: their `schema` value, or `#n` for the n-th part without one. */
  key: z.string(),
  schema: nullableString,
  left_index: nullableNumber,
  right_index: nullableNumber,
  status: PairStatusSchema,
  diff: JsonDiffSchema,
  /** The whole values, for a part present on one side only. */
  left: z.unknown().optional(),
  right: z.unknown().optional(),
});
export type DataComparison = z.infer<typeof DataComparisonSchema>;

export const FileMetaSchema = z.object({
  name: nullableString,
  mime_type: nullableString,
  size: nullableNumber,
  sha256: nullableString,
  uri: nullableString,
  source: z.enum(['inline', 'uri']),
});
export type FileMeta = z.infer<typeof FileMetaSchema>;

export const FileComparisonSchema = z.object({
  key: z.string(),
  status: PairStatusSchema,
  left: FileMetaSchema.nullable(),
  right: FileMetaSchema.nullable(),
  same_mime_type: nullableBoolean,
  same_size: nullableBoolean,
  same_sha256: nullableBoolean,
  same_uri: nullableBoolean,
});
export type FileComparison = z.infer<typeof FileComparisonSchema>;

export const PartsComparisonSchema = z.object({
  equal: z.boolean(),
  text: z.array(TextComparisonSchema),
  data: z.array(DataComparisonSchema),
  files: z.array(FileComparisonSchema),
});
export type PartsComparison = z.infer<typeof PartsComparisonSchema>;

/** A score entry with every key it has, unknown keys kept (spec 2.6: the keys only grow). */
const FullScoreEntrySchema = z.looseObject(ScoreEntrySchema.shape);

export const ScoreComparisonSchema = z.object({
  evaluator: z.string(),
  node: nullableString,
  scope: nullableString,
  status: PairStatusSchema,
  left_score: nullableNumber,
  right_score: nullableNumber,
  /** right - left, when both are numbers. */
  delta: nullableNumber,
  left: FullScoreEntrySchema.nullable(),
  right: FullScoreEntrySchema.nullable(),
  /** Keys other than `score` whose values differ. */
  changed_keys: z.array(z.string()),
});
export type ScoreComparison = z.infer<typeof ScoreComparisonSchema>;

export const SpanRefSchema = z.object({
  span_id: z.string(),
  node: z.string(),
  step: z.number().int(),
  status: z.string(),
  /** Node names from the top-level node down to this one (subgraphs, fan-out branches). */
  path: z.array(z.string()),
});
export type SpanRef = z.infer<typeof SpanRefSchema>;

export const DivergenceSchema = z.object({
  /** Why the two runs part at this node. */
  kind: z.enum(['update', 'status', 'only_left', 'only_right']),
  node: z.string(),
  step: z.number().int(),
  path: z.array(z.string()),
  left: SpanRefSchema.nullable(),
  right: SpanRefSchema.nullable(),
  diff: JsonDiffSchema.nullable(),
});
export type Divergence = z.infer<typeof DivergenceSchema>;

export const DivergenceReportSchema = z.object({
  /** Spans were recorded for both runs (NODE_SPANS=off, or a run that never started, has none). */
  available: z.boolean(),
  /** The first node execution, in graph order (superstep, then node name), that differs. */
  first: DivergenceSchema.nullable(),
  only_left: z.array(SpanRefSchema),
  only_right: z.array(SpanRefSchema),
  /** Node executions present in both runs with the same status and update. */
  same: z.number().int(),
});
export type DivergenceReport = z.infer<typeof DivergenceReportSchema>;

export const CodeFileChangeSchema = z.object({ path: z.string(), change: z.enum(['modified', 'added', 'removed']) });
export type CodeFileChange = z.infer<typeof CodeFileChangeSchema>;

export const CodeComparisonSchema = z.object({
  /** Both runs recorded their code (runs that never reached the runtime did not). */
  known: z.boolean(),
  same: nullableBoolean,
  left_fingerprint: nullableString,
  right_fingerprint: nullableString,
  /** Files that differ from left to right (added: only the right run had it). */
  changed_files: z.array(CodeFileChangeSchema),
  left_generation: nullableNumber,
  right_generation: nullableNumber,
});
export type CodeComparison = z.infer<typeof CodeComparisonSchema>;

/** GET /compare. */
export const RunComparisonSchema = z.object({
  left: RunSideSchema,
  right: RunSideSchema,
  /** right - left, when both durations are known. */
  duration_delta_ms: nullableNumber,
  /** One of the runs is still active: this compares what it has so far. */
  partial: z.boolean(),
  options: CompareOptionsReplySchema,
  /** True when the outputs, scores and statuses are equal under the options. */
  equal: z.boolean(),
  input: PartsComparisonSchema,
  output: PartsComparisonSchema,
  scores: z.array(ScoreComparisonSchema),
  divergence: DivergenceReportSchema,
  code: CodeComparisonSchema,
  /** Always null in v1 (spec 4.3 rule 5). */
  automatic_verdict: z.null(),
  /** Tokens and cost of each run and right minus left (GET /compare always sends it). */
  usage: UsageDeltaSchema.optional(),
});
export type RunComparison = z.infer<typeof RunComparisonSchema>;

/** One value the runs gave, and which runs gave it. */
const variantSchema = <T extends z.ZodType>(value: T) => z.object({ value, run_ids: z.array(z.string()) });
const variants = <T extends z.ZodType>(value: T) => z.array(variantSchema(value));
export type Variant<T> = z.infer<ReturnType<typeof variantSchema<z.ZodType<T>>>>;

/** GET /runs/{id}/stability. */
export const StabilityReportSchema = z.object({
  /** The run the others are reruns of (the root of the rerun chain). */
  original_run_id: z.string(),
  /** Ended runs compared, original first. */
  run_ids: z.array(z.string()),
  /** Reruns still active, left out. */
  active_run_ids: z.array(z.string()),
  options: CompareOptionsReplySchema,
  /** Every compared part, score and status is identical across the runs. */
  stable: z.boolean(),
  status: z.object({ stable: z.boolean(), variants: variants(z.string()) }),
  text: z.array(z.object({ index: z.number().int(), stable: z.boolean(), variants: variants(nullableString) })),
  data: z.array(
    z.object({
      key: z.string(),
      stable: z.boolean(),
      stable_paths: z.number().int(),
      varying: z.array(z.object({ path: z.string(), variants: variants(z.unknown()) })),
    }),
  ),
  scores: z.array(
    z.object({
      evaluator: z.string(),
      stable: z.boolean(),
      min: nullableNumber,
      max: nullableNumber,
      values: z.array(z.object({ run_id: z.string(), score: nullableNumber })),
    }),
  ),
});
export type StabilityReport = z.infer<typeof StabilityReportSchema>;
