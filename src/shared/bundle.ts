// Bundle format `svc.playground.bundle/1` (spec 2.6, 4.3 rules 6-8, 9.4) and the import
// answers; the fields beyond the spec are documented in docs/playground-api.md.
import type { RunDetail } from './playground.ts';

export const BUNDLE_FORMAT = 'svc.playground.bundle/1';

/** What user metadata values become in a bundle (keys are kept). */
export const REDACTED = '[redacted]';

export interface BundleSession {
  session_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

/** A run as a bundle carries it: the stored detail without the exporting machine's A2A
 * ids; `parent_run_id` only when the parent is in the bundle too; metadata values redacted. */
export type BundleRun = Pick<
  RunDetail,
  | 'run_id'
  | 'session_id'
  | 'parent_run_id'
  | 'origin'
  | 'status'
  | 'reason'
  | 'created_at'
  | 'started_at'
  | 'ended_at'
  | 'input_parts'
  | 'output_parts'
  | 'scores'
  | 'metadata'
  | 'changed_files'
  | 'revision'
  | 'code_fingerprint'
  | 'code_files'
>;

export interface BundleEvent {
  run_id: string;
  seq: number;
  kind: string;
  [key: string]: unknown;
}

export interface Bundle {
  format: typeof BUNDLE_FORMAT;
  sessions: BundleSession[];
  runs: BundleRun[];
  events: BundleEvent[];
  blobs: Record<string, { bytes_base64: string; size: number }>;
  /** Beyond the spec: where it came from (the project's name, the store's schema version). */
  source: { project: string; schema_version: number };
  /** Beyond the spec: the input contracts the runs' DataParts name, as the project declares
   * them at export; null when the runtime was not running to say. */
  input_contracts: { schema: string; name?: string; json_schema?: unknown }[] | null;
}

export interface BundleProblem {
  /** RFC 6901 pointer into the bundle. */
  path: string;
  message: string;
}

export interface ImportPlan {
  dry_run: boolean;
  project: string | null;
  create: { sessions: number; runs: number; events: number };
  blobs: { new: number; already_stored: number; bytes_new: number };
  /** Runs exported while still active: imported as interrupted. */
  interrupted_runs: number;
  /** Metadata keys whose values arrive redacted. */
  redacted_metadata_keys: string[];
}

export interface ImportResult extends ImportPlan {
  /** Old id → new id, for every session and run. */
  mapping: { sessions: Record<string, string>; runs: Record<string, string> };
}
