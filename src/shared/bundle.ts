// Boundary: studio <-> renderer (and any client). Bundle format `svc.playground.bundle/1`
// (spec 2.6, 4.3 rules 6-8, 9.4): what POST /bundles/export writes (BundleSchema), what POST
// /bundles/import accepts (BundleImportSchema: checked in full before anything is written),
// the requests of both, and the import's answers. The fields beyond the spec are documented
// in docs/playground-api.md.
import { z } from 'zod';
import { BundleDatasetSchema, BundleExperimentSchema, DatasetImportSchema, ImportDatasetSchema, ImportExperimentSchema } from './bundle-evals.ts';
import { DatasetNameSchema } from './datasets.ts';
import {
  BundleBranchSchema,
  BundleDatasetFileSchema,
  BundleRunExtrasSchema,
  DatasetFilesPlanSchema,
  ImportBranchSchema,
  ImportDatasetFileSchema,
  ImportRunExtrasSchema,
} from './bundle-extras.ts';
import { EVENT_KINDS, RUN_STATES, RunDetailSchema } from './playground.ts';

export const BUNDLE_FORMAT = 'svc.playground.bundle/1';

/** What user metadata values become in a bundle (keys are kept). */
export const REDACTED = '[redacted]';

// ---- the bundle as the export writes it ---------------------------------------------------

export const BundleSessionSchema = z.object({
  session_id: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Optional (bundle-extras.ts): a conversation branch's origin. */
  branch_of: BundleBranchSchema.optional(),
});
export type BundleSession = z.infer<typeof BundleSessionSchema>;

/** A run as a bundle carries it: the stored detail without the exporting machine's A2A
 * ids; `parent_run_id` only when the parent is in the bundle too; metadata values redacted. */
export const BundleRunSchema = RunDetailSchema.pick({
  run_id: true,
  session_id: true,
  parent_run_id: true,
  origin: true,
  status: true,
  reason: true,
  created_at: true,
  started_at: true,
  ended_at: true,
  input_parts: true,
  output_parts: true,
  scores: true,
  metadata: true,
  changed_files: true,
  revision: true,
  code_fingerprint: true,
  code_files: true,
}).extend(BundleRunExtrasSchema.shape);
export type BundleRun = z.infer<typeof BundleRunSchema>;

/** A stored run event (playground.ts RunEventSchema) without the A2A ids; traces redacted. */
export const BundleEventSchema = z.looseObject({ run_id: z.string(), seq: z.number().int(), kind: z.string() });
export type BundleEvent = z.infer<typeof BundleEventSchema>;

/** An input contract a run's DataPart names, as the project declared it at export. */
export const BundleContractSchema = z.object({
  schema: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  json_schema: z.unknown().optional(),
});

export const BundleSchema = z.object({
  format: z.literal(BUNDLE_FORMAT),
  sessions: z.array(BundleSessionSchema),
  runs: z.array(BundleRunSchema),
  events: z.array(BundleEventSchema),
  blobs: z.record(z.string(), z.object({ bytes_base64: z.string(), size: z.number().int() })),
  /** Beyond the spec: where it came from (the project's name, the store's schema version). */
  source: z.object({ project: z.string(), schema_version: z.number().int() }),
  /** Beyond the spec: the input contracts the runs' DataParts name; null when the runtime
   * was not running to say. */
  input_contracts: z.array(BundleContractSchema).nullable(),
  /** Optional (only when the export asked for them; bundle-evals.ts): dataset files. */
  datasets: z.array(BundleDatasetSchema).optional(),
  /** Optional: experiments with their cases; their hidden sessions and runs are in
   * `sessions` and `runs`. */
  experiments: z.array(BundleExperimentSchema).optional(),
  /** Optional (bundle-extras.ts): the files beside the exported datasets. */
  dataset_files: z.array(BundleDatasetFileSchema).optional(),
  /** Optional: blobs no file part uses (runs' `linked_blobs`, `dataset_files`), as `blobs`. */
  linked_blobs: z.record(z.string(), z.object({ bytes_base64: z.string(), size: z.number().int() })).optional(),
});
export type Bundle = z.infer<typeof BundleSchema>;

// ---- requests -----------------------------------------------------------------------------

const ids = z.array(z.string().min(1).max(200)).max(10_000).default([]);
/** POST /bundles/export: the sessions (every run of each) and runs to export; optionally
 * experiments (with their hidden sessions and runs) and dataset files by name. */
export const BundleExportRequestSchema = z.object({
  session_ids: ids,
  run_ids: ids,
  experiment_ids: ids,
  datasets: z.array(DatasetNameSchema).max(1000).default([]),
});
export type BundleExportRequest = z.input<typeof BundleExportRequestSchema>;

/** POST /bundles/import?dry_run=true: answer the plan, write nothing. */
export const BundleImportQuerySchema = z.object({ dry_run: z.enum(['true', 'false', '1', '0']).optional() });

const SHA = /^[0-9a-f]{64}$/;

const text = z.string().max(1_000_000);
const time = z.string().min(1).max(64);
const sha = z.string().regex(SHA, 'a lowercase hex sha256');
const optionalText = z.string().max(1000).optional();
/** Every stored part kind (spec 2.6), with the fields the studio reads. */
const part = z.discriminatedUnion('kind', [
  z.looseObject({ kind: z.literal('text'), text: z.string(), partial: z.boolean().optional() }),
  z.looseObject({ kind: z.literal('data'), data: z.record(z.string(), z.unknown()) }),
  z.looseObject({ kind: z.literal('file'), source: z.enum(['inline', 'uri']), name: optionalText, mime_type: optionalText }).superRefine((p, ctx) => {
    if (p.source === 'inline') {
      if (typeof p.sha256 !== 'string' || !SHA.test(p.sha256))
        ctx.addIssue({ code: 'custom', path: ['sha256'], message: 'an inline file part needs a lowercase hex sha256' });
      if (!Number.isSafeInteger(p.size) || (p.size as number) < 0)
        ctx.addIssue({ code: 'custom', path: ['size'], message: 'an inline file part needs its size in bytes' });
    } else if (typeof p.uri !== 'string' || p.uri.length === 0 || p.uri.length > 8192) {
      ctx.addIssue({ code: 'custom', path: ['uri'], message: 'a file part by reference needs its uri' });
    }
  }),
  z.looseObject({ kind: z.literal('status'), status: z.string() }),
  z.looseObject({ kind: z.literal('error'), message: z.string() }),
]);

/** One event of `events` on import (checked one at a time as the body streams, D-96). */
export const ImportEventSchema = z.looseObject({ run_id: z.string().min(1).max(200), seq: z.number().int().min(1), kind: z.enum(EVENT_KINDS) });

/** What import accepts, beside `events` and the blob maps (streamed, D-96): every stored
 * part kind and the fields the studio reads, unknown keys of parts, scores and events kept;
 * strict where a wrong value would be written. */
export const BundleImportSchema = z.object({
  format: z.string(),
  sessions: z.array(z.object({ session_id: z.string().min(1).max(200), title: text, created_at: time, updated_at: time, branch_of: ImportBranchSchema })),
  runs: z.array(
    z
      .object({
        run_id: z.string().min(1).max(200),
        session_id: z.string().min(1).max(200),
        parent_run_id: z.string().max(200).nullable(),
        origin: z.enum(['send', 'resume', 'rerun']),
        status: z.enum(RUN_STATES),
        reason: z.string().max(200).nullable(),
        created_at: time,
        started_at: time.nullable(),
        ended_at: time.nullable(),
        input_parts: z.array(part),
        output_parts: z.array(part),
        scores: z.array(z.looseObject({ evaluator: z.string(), score: z.number().nullable() })),
        metadata: z.record(z.string(), z.unknown()),
        changed_files: z.array(z.string()),
        revision: z.string().max(200).nullable(),
        code_fingerprint: z.string().max(200).nullable().optional(),
        code_files: z.record(z.string().max(1000), sha).nullable().optional(),
      })
      .extend(ImportRunExtrasSchema.shape),
  ),
  source: z.looseObject({ project: z.string().optional() }).optional(),
  input_contracts: z.array(z.unknown()).nullable().optional(),
  datasets: z.array(ImportDatasetSchema).max(1000).optional(),
  experiments: z.array(ImportExperimentSchema).max(10_000).optional(),
  dataset_files: z.array(ImportDatasetFileSchema).max(100_000).optional(),
});
export type ParsedBundle = z.infer<typeof BundleImportSchema>;

// ---- import answers -----------------------------------------------------------------------

export const BundleProblemSchema = z.object({
  /** RFC 6901 pointer into the bundle. */
  path: z.string(),
  message: z.string(),
});
export type BundleProblem = z.infer<typeof BundleProblemSchema>;

/** 200 of a dry run. */
export const ImportPlanSchema = z.object({
  dry_run: z.boolean(),
  project: z.string().nullable(),
  create: z.object({
    sessions: z.number().int(),
    runs: z.number().int(),
    events: z.number().int(),
    /** Experiments and their case rows (0 for a bundle without experiments). */
    experiments: z.number().int(),
    experiment_cases: z.number().int(),
  }),
  blobs: z.object({ new: z.number().int(), already_stored: z.number().int(), bytes_new: z.number().int() }),
  /** Runs exported while still active: imported as interrupted. */
  interrupted_runs: z.number().int(),
  /** Metadata keys whose values arrive redacted. */
  redacted_metadata_keys: z.array(z.string()),
  /** Experiments exported while running: imported as cancelled (`exported_while_running`). */
  cancelled_experiments: z.number().int(),
  /** What happens to each dataset of the bundle (none: empty). */
  datasets: z.array(DatasetImportSchema),
  /** The files beside the bundle's datasets (bundle-extras.ts; none: zeros). */
  dataset_files: DatasetFilesPlanSchema,
});
export type ImportPlan = z.infer<typeof ImportPlanSchema>;

/** 201 of an import: the plan, and old id -> new id for every session and run. */
export const ImportResultSchema = ImportPlanSchema.extend({
  mapping: z.object({
    sessions: z.record(z.string(), z.string()),
    runs: z.record(z.string(), z.string()),
    experiments: z.record(z.string(), z.string()),
    /** Dataset name in the bundle -> its name in this project. */
    datasets: z.record(z.string(), z.string()),
  }),
});
export type ImportResult = z.infer<typeof ImportResultSchema>;
