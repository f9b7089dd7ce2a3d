// Datasets and experiments over HTTP (docs/playground-api.md, "Datasets and experiments
// (extensions of spec 4.3)"; docs/evaluation.md): every request and reply the studio's
// /api/playground/v1 datasets and experiments endpoints take and give. Additive changes only.
import { ReplayMismatchSchema } from './recordings.ts';
import { MockListSchema } from './mocks.ts';
import { z } from 'zod';
import { UsageDeltaSchema, UsageTotalsSchema } from './usage.ts';
import { AssertionResultSchema, DatasetCaseSchema, DatasetDiagnosticSchema, DatasetNameSchema, DatasetSchema } from './datasets.ts';
import { RunStatusSchema, ScoreEntrySchema } from './playground.ts';

const page = <T extends z.ZodTypeAny>(item: T) => z.object({ items: z.array(item), next_cursor: z.string().nullable() });

// Datasets --------------------------------------------------------------------------

/** GET /datasets: one entry per `evals/*.jsonl` file of the project. */
export const DatasetSummarySchema = z.object({
  name: DatasetNameSchema,
  /** Project-relative file, e.g. `evals/support.jsonl`. */
  file: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  case_count: z.number().int(),
  /** sha256 of the file's bytes: the dataset's version (experiments record it). */
  hash: z.string(),
  diagnostics_count: z.number().int(),
});
export type DatasetSummary = z.infer<typeof DatasetSummarySchema>;
export const DatasetListSchema = z.object({ items: z.array(DatasetSummarySchema) });
export type DatasetList = z.infer<typeof DatasetListSchema>;

/** GET /datasets/{name}: the cases and the diagnostics (file:line) of the lines that are not. */
export const DatasetDetailSchema = DatasetSchema;
export type DatasetDetail = z.infer<typeof DatasetDetailSchema>;
export { DatasetDiagnosticSchema };

/** POST /datasets → 201 DatasetDetail; 409 `dataset_exists` when the file exists. */
export const CreateDatasetBodySchema = z.strictObject({
  name: DatasetNameSchema,
  description: z.string().max(2000).optional(),
});
export type CreateDatasetBody = z.infer<typeof CreateDatasetBodySchema>;

/** POST /datasets/{name}/cases ("Add to dataset"): the case is built from the run (its input
 * and metadata, the earlier user turns of its session as `history`, its output as the reference
 * with a `matches_reference` assertion). `base_hash`: the dataset hash the client read; when the
 * file changed since, 409 `file_changed` (the source view's save conflict). */
export const AddCaseBodySchema = z.strictObject({
  run_id: z.string().min(1),
  case_id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\s]+$/, 'a case id has no spaces')
    .optional(),
  description: z.string().max(2000).optional(),
  tags: z.array(z.string()).max(50).optional(),
  base_hash: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});
export type AddCaseBody = z.infer<typeof AddCaseBodySchema>;

/** 201 reply of POST /datasets/{name}/cases. */
export const AddCaseReplySchema = z.object({
  dataset: z.string(),
  file: z.string(),
  /** The line the case was written at (1-based). */
  line: z.number().int(),
  case: DatasetCaseSchema,
  /** The file's new hash (pass it as base_hash of the next write). */
  hash: z.string(),
});
export type AddCaseReply = z.infer<typeof AddCaseReplySchema>;

// Experiments -----------------------------------------------------------------------

export const EXPERIMENT_STATES = ['running', 'completed', 'cancelled', 'failed'] as const;
export const ExperimentStatusSchema = z.enum(EXPERIMENT_STATES);
export type ExperimentStatus = z.infer<typeof ExperimentStatusSchema>;

export const CASE_STATES = ['pending', 'running', 'passed', 'failed', 'error', 'cancelled'] as const;
export const CaseStatusSchema = z.enum(CASE_STATES);
export type CaseStatus = z.infer<typeof CaseStatusSchema>;

/** POST /experiments → 202 ExperimentAccepted. */
export const CreateExperimentBodySchema = z.strictObject({
  dataset: DatasetNameSchema,
  /** Only these case ids (404 `not_found` naming the unknown ones). */
  cases: z.array(z.string().min(1)).min(1).max(10_000).optional(),
  /** Only cases with at least one of these tags. */
  tags: z.array(z.string().min(1)).min(1).max(50).optional(),
  repeat: z.number().int().min(1).max(20).default(1),
  concurrency: z.number().int().min(1).max(16).default(4),
  /** Each case's runs answered from the same case's runs of an earlier experiment (same case id
   * and repeat, turn by turn): no model or tool call goes to the network (docs/playground-api.md, "Replay"). */
  /** Tool mocks for every case's runs (docs/playground-api.md, "Tool mocks"). */
  mocks: MockListSchema.optional(),
  replay: z.strictObject({ from_experiment_id: z.string().min(1), on_mismatch: ReplayMismatchSchema.default('error') }).optional(),
});
export type CreateExperimentBody = z.input<typeof CreateExperimentBodySchema>;

export const ExperimentAcceptedSchema = z.object({ experiment_id: z.string(), status: ExperimentStatusSchema });
export type ExperimentAccepted = z.infer<typeof ExperimentAcceptedSchema>;

export const ExperimentCountsSchema = z.object({
  /** Cases × repeat. */
  total: z.number().int(),
  pending: z.number().int(),
  running: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int(),
  error: z.number().int(),
  cancelled: z.number().int(),
});
export type ExperimentCounts = z.infer<typeof ExperimentCountsSchema>;

/** The model the runtime child was configured with (never a key). `real` is false for the
 * offline scripted model: an llm_judge assertion is then skipped. */
export const ModelSettingsSchema = z.object({
  provider: z.string(),
  model: z.string().nullable(),
  base_url_host: z.string().nullable(),
  real: z.boolean(),
});
export type ModelSettings = z.infer<typeof ModelSettingsSchema>;

/** GET /experiments items. */
export const ExperimentSummarySchema = z.object({
  experiment_id: z.string(),
  dataset: z.string(),
  dataset_file: z.string(),
  dataset_hash: z.string(),
  status: ExperimentStatusSchema,
  /** Why it ended when not `completed`: `user_cancelled`, `code_changed`, `studio_shutdown`, `internal_error`. */
  reason: z.string().nullable(),
  code_fingerprint: z.string().nullable(),
  repeat: z.number().int(),
  concurrency: z.number().int(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  counts: ExperimentCountsSchema,
  /** passed / (passed + failed + error): the cases that ended; null before any did. */
  pass_rate: z.number().nullable(),
  /** Set when the experiment came in a bundle: its id there, the project it came from, and
   * when it was imported (additive: absent in older results files). */
  imported: z.object({ from_experiment_id: z.string(), project: z.string().nullable(), at: z.string() }).nullable().optional(),
});
export type ExperimentSummary = z.infer<typeof ExperimentSummarySchema>;
export const ExperimentPageSchema = page(ExperimentSummarySchema);
export type ExperimentPage = z.infer<typeof ExperimentPageSchema>;

/** Ten equal-width bins over [min, max] of the values (all in the first bin when min = max). */
export const HistogramSchema = z.object({ min: z.number(), max: z.number(), counts: z.array(z.number().int()) });
export type Histogram = z.infer<typeof HistogramSchema>;

export const AssertionAggregateSchema = z.object({
  label: z.string(),
  type: z.string(),
  pass: z.number().int(),
  fail: z.number().int(),
  skipped: z.number().int(),
  error: z.number().int(),
});
export const EvaluatorAggregateSchema = z.object({
  evaluator: z.string(),
  count: z.number().int(),
  mean: z.number().nullable(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  p50: z.number().nullable(),
  histogram: HistogramSchema.nullable(),
});
export const LatencyAggregateSchema = z.object({
  count: z.number().int(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  max: z.number().nullable(),
  histogram: HistogramSchema.nullable(),
});
export const CasePassRateSchema = z.object({
  case_id: z.string(),
  runs: z.number().int(),
  passed: z.number().int(),
  /** passed / ended runs of the case (cancelled ones left out); null when none ended. */
  pass_rate: z.number().nullable(),
});
export type CasePassRate = z.infer<typeof CasePassRateSchema>;

export const ExperimentAggregatesSchema = z.object({
  assertions: z.array(AssertionAggregateSchema),
  evaluators: z.array(EvaluatorAggregateSchema),
  latency: LatencyAggregateSchema,
  /** One entry per case (useful when repeat > 1: stability). */
  cases: z.array(CasePassRateSchema),
  /** Tokens and cost of every case's runs (docs/playground-api.md "Tokens and cost"). */
  usage: UsageTotalsSchema.optional(),
});
export type ExperimentAggregates = z.infer<typeof ExperimentAggregatesSchema>;

/** GET /experiments/{id}. (GET /experiments/{id}/events streams ExperimentSummary as SSE
 * `progress` events, then one `end`.) */
export const ExperimentDetailSchema = ExperimentSummarySchema.extend({
  /** File path -> sha256 of the code the experiment ran with. */
  code_files: z.record(z.string(), z.string()),
  model: ModelSettingsSchema,
  /** The request's filter. */
  cases_filter: z.array(z.string()).nullable(),
  tags_filter: z.array(z.string()).nullable(),
  /** With reason `code_changed`: the files that changed. */
  changed_files: z.array(z.string()),
  aggregates: ExperimentAggregatesSchema,
});
export type ExperimentDetail = z.infer<typeof ExperimentDetailSchema>;

/** GET /experiments/{id}/cases query. */
export const ExperimentCasesQuerySchema = z.object({
  filter: z.enum(['all', 'failures']).default('all'),
  tag: z.string().optional(),
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const ExperimentCaseSchema = z.object({
  case_id: z.string(),
  /** 0-based. */
  repeat: z.number().int(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  input_preview: z.string(),
  status: CaseStatusSchema,
  run_id: z.string().nullable(),
  session_id: z.string().nullable(),
  run_status: RunStatusSchema.nullable(),
  run_reason: z.string().nullable(),
  error_code: z.string().nullable(),
  duration_ms: z.number().nullable(),
  assertions: z.array(AssertionResultSchema),
  scores: z.array(ScoreEntrySchema),
  /** Why the case errored before its assertions (its history failed, no run could start). */
  message: z.string().nullable(),
  /** Tokens the case's runs used, when the model reported them (additive: absent = unknown). */
  tokens: z.object({ input: z.number().int().nullable(), output: z.number().int().nullable() }).nullable().optional(),
  /** Tokens and cost of the case's runs (its history turns and its input), null before it ran. */
  usage: UsageTotalsSchema.nullable().optional(),
});
export type ExperimentCase = z.infer<typeof ExperimentCaseSchema>;
export const ExperimentCasePageSchema = page(ExperimentCaseSchema);
export type ExperimentCasePage = z.infer<typeof ExperimentCasePageSchema>;

// Compare ---------------------------------------------------------------------------

export const CASE_VERDICTS = ['improved', 'regressed', 'unchanged', 'new', 'removed'] as const;
export const CaseVerdictSchema = z.enum(CASE_VERDICTS);
export type CaseVerdict = z.infer<typeof CaseVerdictSchema>;

const CaseSideSchema = z
  .object({
    pass_rate: z.number().nullable(),
    runs: z.number().int(),
    passed: z.number().int(),
    /** The case's runs, repeat order; the first is the one GET /compare?left=&right= pairs. */
    run_ids: z.array(z.string()),
    /** Mean score per evaluator. */
    scores: z.record(z.string(), z.number()),
  })
  .nullable();

export const ScoreDeltaSchema = z.object({ evaluator: z.string(), left: z.number().nullable(), right: z.number().nullable(), delta: z.number().nullable() });

export const CompareCaseSchema = z.object({
  case_id: z.string(),
  verdict: CaseVerdictSchema,
  left: CaseSideSchema,
  right: CaseSideSchema,
  score_deltas: z.array(ScoreDeltaSchema),
  /** The run pair for GET /compare?left=RUN&right=RUN, when both sides ran. */
  run_compare: z.object({ left: z.string(), right: z.string() }).nullable(),
  /** The case's tokens and cost on each side (all its repeats), right minus left. */
  usage: UsageDeltaSchema.optional(),
});
export type CompareCase = z.infer<typeof CompareCaseSchema>;

export const ChangedCodeFileSchema = z.object({ path: z.string(), change: z.enum(['added', 'removed', 'modified']) });

/** GET /experiments/compare?left=EXP&right=EXP (left: the baseline, right: the new one). */
export const ExperimentCompareSchema = z.object({
  left: ExperimentSummarySchema,
  right: ExperimentSummarySchema,
  counts: z.record(CaseVerdictSchema, z.number().int()),
  cases: z.array(CompareCaseSchema),
  changed_files: z.array(ChangedCodeFileSchema),
  same_code: z.boolean(),
  same_dataset: z.boolean(),
  /** Both experiments' tokens and cost, right minus left. */
  usage: UsageDeltaSchema.optional(),
});
export type ExperimentCompare = z.infer<typeof ExperimentCompareSchema>;
export const ExperimentCompareQuerySchema = z.object({ left: z.string().min(1), right: z.string().min(1) });

/** The extension field on sessions (GET /sessions/{id}): the experiment a hidden session runs
 * a case of; such sessions are left out of GET /sessions. */
export const EXPERIMENT_SESSION_FIELD = 'experiment_id';

/** `agent-studio eval` writes one results.json (and reads one as `--baseline FILE`): per
 * dataset, the experiment and all its cases. */
export const ResultsFileSchema = z.object({
  format: z.literal('agent-studio.eval-results/1'),
  project: z.string(),
  created_at: z.string(),
  experiments: z.array(z.object({ experiment: ExperimentDetailSchema, cases: z.array(ExperimentCaseSchema) })),
});
export type ResultsFile = z.infer<typeof ResultsFileSchema>;
