// What the run executor needs from the agent runtime it drives. The studio's supervisor
// (src/main/studio/supervisor.ts) implements it for the child process; keeping it an
// interface keeps the executor free of process management and testable on its own.
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
   * answers it with success, otherwise a restart of the process. */
  applyChanges(): Promise<'reload' | 'restart'>;
  /** A command a user can paste to run the runtime by hand (spec 6.2). */
  recommendedRunCommand(): string;
  /** Why the runtime is not available, for people (e.g. the tail of its error output). */
  unavailableDetail(): string | null;
}

/** A project diagnostic (the loader's shape, runtime/project/loader.ts). */
export interface ProjectDiagnostic {
  file: string;
  line?: number;
  column?: number;
  field?: string;
  message: string;
}

/** Validates the project on disk; answers its diagnostics (empty when valid). */
export type ProjectValidator = () => Promise<ProjectDiagnostic[]>;
