// Boundary: studio <-> renderer (and any client). The optional bundle keys that carry
// datasets and experiments (docs/playground-api.md, "POST /bundles/export"; docs/evaluation.md,
// "Sharing"). The format stays `svc.playground.bundle/1` (spec 4.3 rules 6-8): these keys are
// absent unless asked for, and an importer that does not know them ignores them.
import { z } from 'zod';
import { AssertionResultSchema, DatasetNameSchema } from './datasets.ts';
import { CASE_STATES, EXPERIMENT_STATES, ModelSettingsSchema } from './experiments.ts';
import { RUN_STATES } from './playground.ts';

// ---- as the export writes them ------------------------------------------------------------

/** A dataset file's text as it was at export, and the sha256 of its bytes. */
export const BundleDatasetSchema = z.object({ name: z.string(), text: z.string(), hash: z.string() });
export type BundleDataset = z.infer<typeof BundleDatasetSchema>;

/** One case x repeat of an experiment, in the experiment's order. */
export const BundleExperimentCaseSchema = z.object({
  case_id: z.string(),
  repeat: z.number().int(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  input_preview: z.string(),
  status: z.enum(CASE_STATES),
  run_id: z.string().nullable(),
  session_id: z.string().nullable(),
  run_status: z.enum(RUN_STATES).nullable(),
  run_reason: z.string().nullable(),
  error_code: z.string().nullable(),
  duration_ms: z.number().nullable(),
  assertions: z.array(AssertionResultSchema),
  scores: z.array(z.looseObject({ evaluator: z.string(), score: z.number().nullable() })),
  message: z.string().nullable(),
});
export type BundleExperimentCase = z.infer<typeof BundleExperimentCaseSchema>;

/** An experiment's record, the hidden sessions its cases ran in (in the bundle's `sessions`,
 * with their runs in `runs`) and its cases. */
export const BundleExperimentSchema = z.object({
  experiment_id: z.string(),
  dataset: z.string(),
  dataset_file: z.string(),
  dataset_hash: z.string(),
  status: z.enum(EXPERIMENT_STATES),
  reason: z.string().nullable(),
  repeat: z.number().int(),
  concurrency: z.number().int(),
  cases_filter: z.array(z.string()).nullable(),
  tags_filter: z.array(z.string()).nullable(),
  code_fingerprint: z.string().nullable(),
  code_files: z.record(z.string(), z.string()),
  model: ModelSettingsSchema,
  changed_files: z.array(z.string()),
  created_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  session_ids: z.array(z.string()),
  cases: z.array(BundleExperimentCaseSchema),
});
export type BundleExperiment = z.infer<typeof BundleExperimentSchema>;

// ---- what import accepts (strict where a wrong value would be written) --------------------

const SHA = /^[0-9a-f]{64}$/;
const sha = z.string().regex(SHA, 'a lowercase hex sha256');
const id = z.string().min(1).max(200);
const time = z.string().min(1).max(64);
const short = z.string().max(200);
const label = z.string().max(1000);

export const ImportDatasetSchema = z.object({
  name: DatasetNameSchema,
  text: z.string().max(50_000_000),
  hash: sha,
});

export const ImportExperimentSchema = z.object({
  experiment_id: id,
  dataset: DatasetNameSchema,
  dataset_file: z.string().min(1).max(1000),
  dataset_hash: sha,
  status: z.enum(EXPERIMENT_STATES),
  reason: short.nullable(),
  repeat: z.number().int().min(1).max(1000),
  concurrency: z.number().int().min(1).max(1000),
  cases_filter: z.array(label).nullable(),
  tags_filter: z.array(label).nullable(),
  code_fingerprint: short.nullable(),
  code_files: z.record(z.string().max(1000), sha),
  model: z.object({ provider: short, model: label.nullable(), base_url_host: label.nullable(), real: z.boolean() }),
  changed_files: z.array(z.string().max(1000)),
  created_at: time,
  started_at: time.nullable(),
  ended_at: time.nullable(),
  session_ids: z.array(id),
  cases: z
    .array(
      z.object({
        case_id: id,
        repeat: z.number().int().min(0).max(1000),
        description: z.string().max(10_000).nullable(),
        tags: z.array(label),
        input_preview: z.string().max(10_000),
        status: z.enum(CASE_STATES),
        run_id: id.nullable(),
        session_id: id.nullable(),
        run_status: z.enum(RUN_STATES).nullable(),
        run_reason: short.nullable(),
        error_code: short.nullable(),
        duration_ms: z.number().min(0).nullable(),
        assertions: z.array(z.object({ type: short, label: label, status: z.enum(['pass', 'fail', 'skipped', 'error']), message: z.string().max(100_000) })),
        scores: z.array(z.looseObject({ evaluator: z.string(), score: z.number().nullable() })),
        message: z.string().max(100_000).nullable(),
      }),
    )
    .max(200_000),
});
export type ImportExperiment = z.infer<typeof ImportExperimentSchema>;

// ---- import answers -----------------------------------------------------------------------

/** What import does with a bundle's dataset: `create` (no such file), `identical` (the file
 * `as` has the same content: nothing written), `renamed` (a different file has the name:
 * written as `as` = `<name>-imported[-N]`, the author's file untouched). */
export const DatasetImportSchema = z.object({
  name: z.string(),
  action: z.enum(['create', 'identical', 'renamed']),
  /** The name it has in this project (`evals/<as>.jsonl`). */
  as: z.string(),
  file: z.string(),
});
export type DatasetImport = z.infer<typeof DatasetImportSchema>;
