// What the run executor needs from the agent runtime it drives. The studio's supervisor
// (src/main/studio/child/supervisor.ts) implements it for the child process; keeping it an
// interface keeps the executor free of process management and testable on its own.
import type { ProjectDiagnostic } from '../../../shared/runtime-contract.ts';
export interface RuntimeHandle {
  /** Base URL (with trailing slash) of a ready runtime, or null when none is ready in time
   * or the runtime keeps failing to start. */
  waitReady(timeoutMs: number): Promise<string | null>;
  /** Increments every time a runtime process is started. */
  readonly generation: number;
  /** True once the runtime process of that generation has exited (waits up to timeoutMs). */
  waitExit(generation: number, timeoutMs: number): Promise<boolean>;
  /** Called with the generation of every runtime process that exits. */
  onExit(listener: (generation: number) => void): () => void;
  /** Makes the runtime serve the project's current files: a hot reload when the runtime
   * answers it with success, otherwise a restart of the process. The runtime validates the
   * files (project code runs only there): a project that does not load answers its
   * diagnostics, and a runtime that was serving keeps serving the previous files. */
  applyChanges(): Promise<ApplyOutcome>;
  /** Headers that authenticate the studio to its runtime's control endpoints. */
  controlHeaders(): Record<string, string>;
  /** While the runtime cannot start because its project does not load: the diagnostics. */
  startDiagnostics?(): ProjectDiagnostic[] | null;
  /** A command a user can paste to run the runtime by hand (spec 6.2). */
  recommendedRunCommand(): string;
  /** Why the runtime is not available, for people (e.g. the tail of its error output). */
  unavailableDetail(): string | null;
}

export type { ProjectDiagnostic };

export type ApplyOutcome = { applied: 'reload' | 'restart' } | { diagnostics: ProjectDiagnostic[] };
