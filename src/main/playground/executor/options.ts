// What the run executor (executor.ts) is built with: the store, blobs and event log it writes,
// the runtime it sends to, and the studio's hooks (connection profile, debugger, tool mocks,
// project watcher).
import type { Logger } from 'pino';
import type { DebugControl } from '../../../shared/breakpoints.ts';
import type { EventLog } from '../events/log.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { PlaygroundStore } from '../store/store.ts';
import type { ActiveRun, withMocks } from './active-run.ts';
import type { ApplyOutcome, ProjectDiagnostic, RuntimeHandle } from './runtime.ts';
import type { CodeSnapshot } from './snapshot.ts';

export interface ExecutorOptions {
  store: PlaygroundStore;
  blobs: BlobStore;
  log: EventLog;
  runtime: RuntimeHandle;
  logger: Logger;
  /** How long preparing waits for a runtime that is starting (default 30 s). */
  readyTimeoutMs?: number;
  /** How long a cancelled run waits for the A2A task id before closing its stream (default 10 s). */
  cancelTimeoutMs?: number;
  /** The connection profile (studio/connection/store.ts): when set, A2A calls send its header
   * instead of the control token, so the runtime sees the profile's caller (docs/studio-api.md). */
  connection?: () => { header: string; value: string } | null;
  /** A run's debug control (breakpoints, continue, step; debug/breakpoints.ts) and the header
   * that lets the runtime honour it, or null to send none. */
  debug?: (row: ActiveRun['row']) => { control: DebugControl; headers: Record<string, string> } | null;
  mocks?: (row: ActiveRun['row']) => Parameters<typeof withMocks>[1]; // A run's tool mocks (mocks/, D-102).
  /** The studio's project watcher: edits not applied yet join a run's changed files, and the
   * outcome of applying them is reported back (studio/project/state.ts). */
  project?: {
    /** Resolves when changes being applied right now are applied. */
    settled(): Promise<void>;
    takePending(): string[];
    /** Applies the changes a run's preparing phase took; settled() waits for it meanwhile. */
    applyTaken(): Promise<ApplyOutcome>;
    recordOutcome(diagnostics: ProjectDiagnostic[]): void;
    /** The diagnostics of the last load of the files on disk (empty when they load). */
    diagnostics(): ProjectDiagnostic[];
    /** The files the run's preparing phase found (and applied), kept in the blob store. */
    runCode(): CodeSnapshot;
  };
}
