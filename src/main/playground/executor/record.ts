// How a run's progress is written: the run row and its events (docs/playground-api.md
// "Events"). A state change writes the row and its `run.status` event in one transaction;
// the end writes the row, the output parts, the `complete` phase and the final status in one.
import { closingEnd, openSpans } from '../../../shared/spans.ts';
import type { PhaseName, PhaseState, RunReason, RunStatus, ScoreEntry, TaggedPart } from '../../../shared/playground.ts';
import type { EventLog } from '../events/log.ts';
import type { StoredBlob } from '../parts.ts';
import type { PlaygroundStore, RunPatch } from '../store/store.ts';
import type { ProjectDiagnostic } from './runtime.ts';

/** How a run ended, as stored. */
export interface RunEnding {
  status: RunStatus;
  reason: RunReason | null;
  parts: TaggedPart[];
  /** Extra keys of the `complete` phase event. */
  detail?: Record<string, unknown>;
  /** Blobs the output parts refer to. */
  blobs?: StoredBlob[];
  scores?: ScoreEntry[];
}

export class RunRecorder {
  constructor(
    private readonly store: PlaygroundStore,
    private readonly log: EventLog,
  ) {}

  /** A new active state, with the fields that change with it. A function patch is computed
   * inside the transaction, so the rows it writes (a code snapshot's blob links) commit with
   * the status in one write rather than one commit each (docs/performance.md). */
  status(runId: string, status: RunStatus, patch: RunPatch | (() => RunPatch) = {}): void {
    this.store.transaction(() => {
      // A row change waiting for the log's batch is older than this one: written under it.
      this.store.updateRun(runId, { ...this.log.takePatch(runId), status, ...(typeof patch === 'function' ? patch() : patch) });
      this.log.append(runId, 'run.status', { status });
      // The events waiting for the log's next batch commit with this write instead of in one
      // more commit of their own (docs/performance.md, "Experiments").
      this.log.flush();
    });
  }

  /** A new active state the run leaves at once, written with the log's next batch (D-112): the
   * row's change and its `run.status` event still commit in one transaction, the next status
   * write's, the end's or the batch timer's (within its 5 ms), instead of one of their own. */
  statusWithBatch(runId: string, status: RunStatus): void {
    this.log.patchRun(runId, { status });
    this.log.append(runId, 'run.status', { status });
  }

  phase(runId: string, phase: PhaseName, state: PhaseState, detail: Record<string, unknown> = {}): void {
    this.log.append(runId, 'run.phase', { phase, state, ...detail });
  }

  /** The project's problems, one `diagnostic` event each. */
  diagnostics(runId: string, diagnostics: readonly ProjectDiagnostic[]): void {
    for (const d of diagnostics) {
      this.log.append(runId, 'diagnostic', {
        severity: 'error',
        message: d.message,
        file: d.file,
        ...(d.line !== undefined ? { line: d.line } : {}),
        ...(d.column !== undefined ? { column: d.column } : {}),
        ...(d.field !== undefined ? { field: d.field } : {}),
      });
    }
  }

  /** Closes the spans a run's end left open (their `span.start` data): one `span.end` trace
   * event each, innermost first, in the run's end state (docs/runtime-traces.md "When a run
   * ends"). Written by the studio: the runtime that opened them has not said (it died, or
   * its closing events arrive after the run ended). */
  closeSpans(runId: string, open: readonly Record<string, unknown>[], status: RunStatus, reason: RunReason | null): void {
    const now = Date.now();
    for (const start of [...open].reverse()) this.log.append(runId, 'trace', { name: 'span.end', data: closingEnd(start, status, reason, now) });
  }

  /** The spans a stored run left open (a run a crash left active), from its stored events. */
  storedOpenSpans(runId: string): Record<string, unknown>[] {
    this.log.flush();
    const traces = this.store
      .readEventObjects(runId, { kind: 'trace', after: 0, limit: 1_000_000 })
      .flatMap(({ event }) =>
        event && typeof event.name === 'string' && event.data && typeof event.data === 'object'
          ? [{ name: event.name, ts: String(event.ts), data: event.data as Record<string, unknown> }]
          : [],
      );
    return openSpans(traces);
  }

  /** The terminal state: row, output, `complete` phase and final status, in one transaction. */
  end(runId: string, e: RunEnding): void {
    const now = new Date().toISOString();
    const ok = e.status === 'completed' || e.status === 'input_required';
    const { status, reason, parts } = e;
    this.store.transaction(() => {
      this.store.updateRun(runId, {
        ...this.log.takePatch(runId),
        status,
        reason,
        ended_at: now,
        output_parts: parts,
        ...(e.scores?.length ? { scores: e.scores } : {}),
      });
      for (const b of e.blobs ?? []) this.store.linkBlob(runId, b.sha256, b.size, now);
      this.log.append(runId, 'run.output', { parts });
      this.log.append(runId, 'run.phase', {
        phase: 'complete',
        state: ok ? 'completed' : 'failed',
        status,
        ...(reason ? { reason } : {}),
        ...e.detail,
      });
      this.log.append(runId, 'run.status', { status, ...(reason ? { reason } : {}) });
    });
  }
}
