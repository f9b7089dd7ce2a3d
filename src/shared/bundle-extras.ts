// Boundary: studio <-> renderer (and any client). The optional bundle keys of D-97
// (docs/playground-api.md, "POST /bundles/export"): blobs a run links beyond its file parts
// (recorded calls' bodies), the files beside exported datasets, and a run's debugger origins
// (fork, edited continue, conversation branch). The format stays `svc.playground.bundle/1`:
// each key is written only when it has something to say, and an importer that does not know
// them ignores them (the runs still import, as ordinary runs).
import { z } from 'zod';
import { DatasetNameSchema } from './datasets.ts';
import { RunEditSchema, RunForkSchema } from './playground.ts';

const SHA = /^[0-9a-f]{64}$/;
const sha = z.string().regex(SHA, 'a lowercase hex sha256');
const id = z.string().min(1).max(200);
const ref = z.string().min(1).max(1000);
const patch = z.array(z.object({ op: z.literal('replace'), path: z.string().max(1000), value: z.unknown() })).max(10_000);

// ---- as the export writes them ------------------------------------------------------------

/** A file beside an exported dataset: its path under `evals/` (`<dataset>.files/...`); the
 * bytes are in the bundle's `linked_blobs` under its sha256. */
export const BundleDatasetFileSchema = z.object({ dataset: z.string(), path: z.string(), sha256: z.string(), size: z.number().int() });
export type BundleDatasetFile = z.infer<typeof BundleDatasetFileSchema>;

/** The optional keys of a run in a bundle. */
export const BundleRunExtrasSchema = z.object({
  /** Blobs the run links beyond its file parts (recorded bodies), sorted; bytes in `linked_blobs`. */
  linked_blobs: z.array(z.string()).optional(),
  /** A fork's origin (RunDetail.fork), when the origin run is in the bundle too. */
  fork: RunForkSchema.optional(),
  /** A Continue that edited the paused state (RunDetail.edit). */
  edit: RunEditSchema.optional(),
});

/** A conversation branch's origin (Session.branch_of), when its session, run and root are in
 * the bundle too. */
export const BundleBranchSchema = z.object({ session_id: z.string(), run_id: z.string(), root_session_id: z.string() });

// ---- what import accepts ------------------------------------------------------------------

export const ImportRunExtrasSchema = z.object({
  linked_blobs: z.array(sha).max(100_000).optional(),
  fork: z
    .object({ run_id: id, session_id: id, checkpoint_id: ref, checkpoint_ns: z.string().max(1000), node: ref.nullable(), patch })
    .nullable()
    .optional(),
  edit: z.object({ checkpoint_id: ref, node: ref.nullable(), edited_checkpoint_id: ref, patch }).nullable().optional(),
});
export type ImportRunExtras = z.infer<typeof ImportRunExtrasSchema>;

export const ImportBranchSchema = z.object({ session_id: id, run_id: id, root_session_id: id }).nullable().optional();

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
export const ImportDatasetFileSchema = z
  .object({ dataset: DatasetNameSchema, path: z.string().min(1).max(1000), sha256: sha, size: z.number().int().min(0) })
  .superRefine((f, ctx) => {
    const segments = f.path.split('/');
    if (!f.path.startsWith(`${f.dataset}.files/`) || segments.length < 2 || !segments.slice(1).every((s) => SEGMENT.test(s)))
      ctx.addIssue({
        code: 'custom',
        path: ['path'],
        message: `a file beside dataset '${f.dataset}' is '${f.dataset}.files/<name>' (letters, digits, '.', '_', '-')`,
      });
  });
export type ImportDatasetFile = z.infer<typeof ImportDatasetFileSchema>;

/** What import does with the files beside the bundle's datasets. */
export const DatasetFilesPlanSchema = z.object({
  /** Written under `evals/`. */
  new: z.number().int(),
  /** Already there with the same bytes: nothing written. */
  identical: z.number().int(),
});
export type DatasetFilesPlan = z.infer<typeof DatasetFilesPlanSchema>;
