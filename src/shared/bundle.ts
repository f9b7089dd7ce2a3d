// Bundle format `svc.playground.bundle/1` (spec 2.6, 4.3 rules 6-8, 9.4) and the import
// answers; the fields beyond the spec are documented in docs/playground-api.md.
import type { RunStatus, ScoreEntry, TaggedPart } from './playground.ts';

export const BUNDLE_FORMAT = 'svc.playground.bundle/1';

/** What user metadata values become in a bundle (keys are kept). */
export const REDACTED = '[redacted]';

export interface BundleSession {
  session_id: string;
  title: string;
  created_at: string;
  updated_at: string;
}

export interface BundleRun {
  run_id: string;
  session_id: string;
  /** Kept only when the parent run is in the bundle too, else null. */
  parent_run_id: string | null;
  origin: 'send' | 'resume' | 'rerun';
  status: RunStatus;
  reason: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  input_parts: TaggedPart[];
  output_parts: TaggedPart[];
  scores: ScoreEntry[];
  /** User metadata, every value redacted. */
  metadata: Record<string, unknown>;
  changed_files: string[];
  revision: string | null;
  code_fingerprint: string | null;
  code_files: Record<string, string> | null;
}

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
