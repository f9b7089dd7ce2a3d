// Wire types of the studio's project surfaces (docs/studio-api.md): `/api/project` and
// `/source-targets/{node}`, shared by the main process and the renderer.
import type { ProjectDiagnostic } from './runtime-contract.ts';

export type { ProjectDiagnostic };

export type TargetKind = 'add_node' | 'function' | 'factory' | 'subgraph' | 'branch' | 'route_from' | 'route_to' | 'evaluator' | 'evaluator_function';

export interface SourceTarget {
  kind: TargetKind;
  /** Project-relative, forward slashes. */
  path: string;
  line: number;
  column: number;
  end_line: number;
  /** The target's first lines, trimmed. */
  snippet: string;
  /** sha256 of the file's text as analysed. */
  file_sha256: string;
}

export interface ProjectStatus {
  name: string;
  dir: string;
  /** Files changed since the runtime last loaded the project (applied before the next run). */
  pending_changes: string[];
  /** `loading` while changes are being applied. */
  state: 'ready' | 'loading' | 'invalid';
  diagnostics: ProjectDiagnostic[];
  /** When the diagnostics (or the last successful load) were learned. */
  checked_at: string | null;
}

/** GET /api/project: the status, the project's files, and the code fingerprint of the files
 * on disk (a run's `code_fingerprint` compares with it). */
export interface ProjectView extends ProjectStatus {
  files: string[];
  fingerprint: string;
  file_sha256: Record<string, string>;
}
