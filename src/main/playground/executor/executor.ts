// The server-owned run executor (spec 4.3). Each run moves through the lifecycle of
// lifecycle.ts (the table docs/playground-api.md shows) in four steps: queue, prepare
// (apply the changed files), connect (a ready runtime) and invoke (A2A `message/stream`,
// read by stream.ts), appending run.status / run.phase / output.delta / trace / diagnostic
// / run.output events as it goes.
//
// A run ends exactly once, through `settle`: the lifecycle refuses every end after the
// first, so whatever comes later (a late trace, the end of an aborted stream, a cancel
// racing the agent's answer) writes nothing. The executor's own end is settled in the one
// try/finally of `execute`; cancel, shutdown and a runtime exit end a run from outside.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PhaseName, PhaseState } from '../../../shared/playground.ts';
import type { RunPatch } from '../store/store.ts';
import type { ExecutorOptions } from './options.ts';
import { isConnectionError, runtimeClient } from './a2a.ts';
import { messageStream } from './a2a-stream.ts';
import { forkHeaders, messageOf, newActiveRun, replayPlanOf, withMocks, type ActiveRun, type StartOptions } from './active-run.ts';
import { TraceCapture } from './capture.ts';
import * as end from './endings.ts';
import type { RunEnd } from './endings.ts';
import { transition, type AdvanceEvent } from './lifecycle.ts';
import { RunRecorder } from './record.ts';
import type { ApplyOutcome } from './runtime.ts';
import { freeSlot } from './slots.ts';
import { snapshotCode } from './snapshot.ts';
import { idsOf, readEvent, streamOutcome, type StreamEvent } from './stream.ts';

export type { ExecutorOptions } from './options.ts';

/** One step of a run: answers how the run ends, or nothing to go on to the next step. */
type Step = (run: ActiveRun) => Promise<RunEnd | undefined> | RunEnd | undefined;

const EXIT_GRACE_MS = 1500;

export class RunExecutor {
  private readonly runs = new Map<string, ActiveRun>();
  private readonly traces: TraceCapture;
  private readonly record: RunRecorder;
  private readonly readyTimeoutMs: number;
  private readonly cancelTimeoutMs: number;
  private readonly unsubscribeExit: () => void;
  private readonly steps: Step[] = [(r) => this.queue(r), (r) => this.prepare(r), (r) => this.connect(r), (r) => this.invoke(r), (r) => this.conclude(r)];
  private stopping = false;

  constructor(private readonly o: ExecutorOptions) {
    this.readyTimeoutMs = o.readyTimeoutMs ?? 30_000;
    this.cancelTimeoutMs = o.cancelTimeoutMs ?? 10_000;
    this.traces = new TraceCapture(o.store, o.log, o.blobs);
    this.record = new RunRecorder(o.store, o.log);
    this.unsubscribeExit = o.runtime.onExit((generation) => this.onRuntimeExit(generation));
  }

  /** The studio's project state (studio/project/state.ts), known once both exist. */
  attachProject(project: NonNullable<ExecutorOptions['project']>): void {
    this.o.project = project;
  }

  get activeCount(): number {
    return this.runs.size;
  }

  get isStopping(): boolean {
    return this.stopping;
  }

  /** Runs a crash (or a kill) left active end `interrupted`, reason `studio_shutdown`, when
   * the studio starts again (docs/playground-api.md). Answers how many. */
  recover(): number {
    const rows = this.o.store.activeRuns();
    for (const row of rows) {
      if (this.runs.has(row.run_id)) continue;
      const t = transition(row.status, 'shutdown');
      if (!t) continue;
      this.record.closeSpans(row.run_id, this.record.storedOpenSpans(row.run_id), t.to, t.reason);
      this.record.end(row.run_id, { status: t.to, reason: t.reason, parts: end.shutdownEnd('').parts });
    }
    return rows.length;
  }

  /** Starts the background work of a run that was just inserted as `queued`. */
  start(runId: string, opts: StartOptions = {}): void {
    const row = this.o.store.getRun(runId);
    if (!row) return;
    const run = newActiveRun(row, opts);
    this.runs.set(runId, run);
    // The request that created the run answers 202 before any work starts (spec 4.3 rule 1).
    (opts.atOnce ? queueMicrotask : setImmediate)(() => {
      // Only a failure to write the end itself gets here; the run is ended in memory.
      this.execute(run).catch((err) => this.o.logger.error({ err, run_id: runId }, 'the end of a run could not be written'));
    });
  }

  /** DELETE /runs/{id}: ends the run `cancelled`, reason `user_cancelled`, at once, and
   * cancels its A2A task too. Answers false when the run is not active here. */
  cancel(runId: string): boolean {
    const run = this.runs.get(runId);
    if (!run) return false;
    const invoking = run.lifecycle.state === 'running';
    if (!this.settle(run, end.cancelEnd(run.stream.streamed))) return false;
    if (!invoking) run.controller.abort();
    else if (run.taskId) this.cancelRemoteTask(run);
    else {
      // The task id arrives with the stream's first event; keep the stream open until
      // then so tasks/cancel can name the task, but never longer than cancelTimeoutMs.
      run.cancelRemote = true;
      setTimeout(() => run.controller.abort(), this.cancelTimeoutMs).unref();
    }
    return true;
  }

  /** Trace events the runtime posted under a capture token (capture.ts). Answers false for
   * a token that belongs to no run being invoked. */
  capture(token: string, events: readonly Record<string, unknown>[]): boolean {
    return this.traces.accept(token, events);
  }

  /** Studio shutdown: every active run ends `interrupted`, reason `studio_shutdown`; their
   * A2A streams are closed (docs/playground-api.md). */
  shutdown(): void {
    this.stopping = true;
    for (const run of [...this.runs.values()]) {
      this.settle(run, end.shutdownEnd(run.stream.streamed));
      run.controller.abort();
    }
    this.recover();
    this.unsubscribeExit();
  }

  // Steps ----------------------------------------------------------------------------

  /** Runs the steps until one answers an end, and settles the run in `finally`. A step is
   * not started once the run ended from outside (cancel, shutdown, runtime exit). */
  private async execute(run: ActiveRun): Promise<void> {
    let ending: RunEnd | undefined;
    try {
      for (const step of this.steps) {
        if (run.lifecycle.ended) return;
        ending = await step(run);
        if (ending) return;
      }
    } catch (err) {
      this.o.logger.error({ err, run_id: run.runId }, 'run executor failed');
      ending = end.internalEnd(err);
    } finally {
      // A run the steps left active (a fault) still ends; an ended run refuses this.
      this.settle(run, ending ?? end.internalEnd(new Error('the run ended without an outcome')));
    }
  }

  /** Waits for changes being applied right now, so the run never starts on the old code. An
   * experiment's run admitted ahead first waits here for one of its slots (D-118); a cancel
   * meanwhile ends it without one. */
  private async queue(run: ActiveRun): Promise<undefined> {
    if (run.slots) run.holdsSlot = await run.slots.acquire(run.controller.signal);
    await this.o.project?.settled();
    return undefined;
  }

  /** The client's changed files, plus edits the studio saw on disk and has not applied yet.
   * The runtime validates and applies them (reload, else restart); the studio never loads
   * the project itself. */
  private async prepare(run: ActiveRun): Promise<RunEnd | undefined> {
    const changed = [...new Set([...run.row.changed_files, ...(this.o.project?.takePending() ?? [])])];
    this.phase(run, 'queue', 'completed', { queue_ms: Date.now() - run.createdAt });
    // Preparing usually lasts until the next tick (nothing to apply, a ready runtime): its
    // state commits with the running state's write (D-112).
    const t = run.lifecycle.fire('start');
    if (t) this.record.statusWithBatch(run.runId, t.to);
    this.phase(run, 'prepare', 'started', { changed_files: changed });
    if (changed.length === 0) {
      // Another run's preparing phase may be applying the changes this run is to run on (it
      // took them first): the run waits for them, as the queue step waits for the watcher's.
      await this.o.project?.settled();
      // The files on disk do not load (the runtime still serves the last good ones): a run
      // would answer with code the author no longer has, so it fails with the real cause.
      const broken = this.o.project?.diagnostics() ?? [];
      if (broken.length) return end.validationEnd(broken);
      run.prepared = { changed, applied: 'none' };
      return undefined;
    }
    const outcome = await this.apply();
    this.o.project?.recordOutcome('diagnostics' in outcome ? outcome.diagnostics : []);
    if ('diagnostics' in outcome) return end.validationEnd(outcome.diagnostics);
    run.prepared = { changed, applied: outcome.applied };
    return undefined;
  }

  private async apply(): Promise<ApplyOutcome> {
    try {
      return await (this.o.project ? this.o.project.applyTaken() : this.o.runtime.applyChanges());
    } catch (err) {
      return { diagnostics: [{ file: '.', message: `the changed files could not be applied: ${(err as Error).message}` }] };
    }
  }

  /** A ready runtime, waiting while it starts. */
  private async connect(run: ActiveRun): Promise<RunEnd | undefined> {
    const baseUrl = await this.o.runtime.waitReady(this.readyTimeoutMs);
    if (!baseUrl) return end.unavailableEnd('prepare', this.o.runtime);
    run.baseUrl = baseUrl;
    this.phase(run, 'prepare', 'completed', { changed_files: run.prepared?.changed ?? [], applied: run.prepared?.applied ?? 'none' });
    return undefined;
  }

  /** The run is running: its code snapshot and capture token, then the A2A stream, read
   * into `run.outcome`. */
  private async invoke(run: ActiveRun): Promise<undefined> {
    run.generation = this.o.runtime.generation;
    run.captureToken = this.traces.open(run.runId);
    run.startedAt = Date.now();
    const startedAt = new Date(run.startedAt).toISOString();
    const debug = this.o.debug?.(run.row) ?? null;
    const mocks = this.o.mocks?.(run.row) ?? null;
    const params = withMocks(messageOf(run, this.o.blobs, debug?.control, replayPlanOf(run.row, this.o.log, this.o.blobs)), mocks);
    const headers = this.callerHeaders();
    const sent = { ...headers.values, ...forkHeaders(run, this.o.runtime.controlHeaders(), mocks !== null), ...debug?.headers };
    const onStatus = (status: number): void => {
      if (status === 401 && headers.profile) run.credentialRefused = true;
    };
    // The request leaves first: the runtime starts the turn while the running state and the
    // code snapshot commit (its answer is read only after this tick, so the stored order of
    // the run's events does not change; docs/playground-api.md, "Storage").
    const stream = messageStream(run.baseUrl!, params, { headers: sent, signal: run.controller.signal, onStatus });
    try {
      this.enter(run, 'invoke', () => ({ started_at: startedAt, ...snapshotCode(run.runId, this.o.project, this.o.store, this.o.logger) }));
      this.phase(run, 'invoke', 'started', {
        ...(run.contextId ? { context_id: run.contextId } : {}),
        ...(run.taskId ? { task_id: run.taskId } : {}),
      });
    } catch (err) {
      run.controller.abort(); // a stream nobody will read
      throw err;
    }
    try {
      for await (const ev of stream) {
        if (!this.read(run, ev)) break;
      }
      run.outcome = streamOutcome(run.stream);
      // The slot went to the experiment's next run at the final status: its request and the
      // other runs' answers are read before this run's end is written (D-118).
      if (run.slots) await nextTurn();
    } catch (err) {
      run.outcome = streamOutcome(run.stream, { error: err });
    }
    return undefined;
  }

  /** Reads one stream event; answers false when the stream should be closed. A run that
   * already ended (cancelled) reads on only to learn the task id tasks/cancel needs. */
  private read(run: ActiveRun, ev: StreamEvent): boolean {
    this.recordIds(run, idsOf(ev));
    if (run.lifecycle.ended) {
      if (run.cancelRemote && run.taskId) this.cancelRemoteTask(run);
      return !(run.controller.signal.aborted || run.remoteCancelSent);
    }
    const { state, deltas } = readEvent(run.stream, ev);
    run.stream = state;
    if (state.final) freeSlot(run);
    for (const text of deltas) this.o.log.append(run.runId, 'output.delta', { text });
    return true;
  }

  /** The stream's outcome as the run's end. A stream that broke or ended early is
   * explained by a dead runtime process when there is one: its exit event may arrive a
   * moment after the socket error. */
  private async conclude(run: ActiveRun): Promise<RunEnd> {
    const outcome = run.outcome ?? { kind: 'ended_early' };
    if (outcome.kind !== 'broken' && outcome.kind !== 'ended_early') return end.answerEnd(outcome, this.o.blobs);
    if (run.credentialRefused) return end.credentialRefusedEnd();
    const died = await this.o.runtime.waitExit(run.generation!, EXIT_GRACE_MS);
    if (died) return end.restartEnd(run.stream.streamed);
    if (outcome.kind === 'ended_early') return end.streamFailedEnd(end.ENDED_EARLY_MESSAGE);
    if (outcome.received === 0 && isConnectionError(outcome.error)) return end.unavailableEnd('invoke', this.o.runtime);
    const err = outcome.error as Error;
    return end.streamFailedEnd(err?.message ?? String(err));
  }

  // Transitions ----------------------------------------------------------------------

  /** A transition to an active state, written with the fields that change with it. */
  private enter(run: ActiveRun, event: AdvanceEvent, patch: RunPatch | (() => RunPatch) = {}): void {
    const t = run.lifecycle.fire(event);
    if (t) this.record.status(run.runId, t.to, patch);
  }

  /** The one way a run ends. Answers false when the lifecycle refuses the end (it had
   * already ended). */
  private settle(run: ActiveRun, e: RunEnd): boolean {
    const t = run.lifecycle.fire(e.event);
    if (!t) return false;
    this.runs.delete(run.runId);
    freeSlot(run);
    const { scores, open } = this.traces.close(run.captureToken);
    this.record.closeSpans(run.runId, open, t.to, t.reason);
    if (e.diagnostics) this.record.diagnostics(run.runId, e.diagnostics);
    if (e.phase) this.record.phase(run.runId, e.phase.name, e.phase.state, e.phase.detail);
    this.record.end(run.runId, { status: t.to, reason: t.reason, parts: e.parts, detail: e.detail, blobs: e.blobs, scores });
    if (e.closeStream) run.controller.abort();
    const now = Date.now();
    const timings = { queue_ms: (run.startedAt ?? now) - run.createdAt, exec_ms: run.startedAt ? now - run.startedAt : null };
    this.o.logger.info({ run_id: run.runId, status: t.to, reason: t.reason, ...timings }, 'run ended');
    return true;
  }

  private phase(run: ActiveRun, phase: PhaseName, state: PhaseState, detail: Record<string, unknown> = {}): void {
    if (!run.lifecycle.ended) this.record.phase(run.runId, phase, state, detail);
  }

  // Runtime ----------------------------------------------------------------------------

  /** The supervisor saw a runtime process exit: runs it was serving end `interrupted`,
   * reason `runtime_restarted`. */
  private onRuntimeExit(generation: number): void {
    for (const run of [...this.runs.values()]) {
      if (run.lifecycle.state === 'running' && run.generation === generation) this.settle(run, end.restartEnd(run.stream.streamed));
    }
  }

  private cancelRemoteTask(run: ActiveRun): void {
    if (run.remoteCancelSent || !run.taskId || !run.baseUrl) return;
    run.remoteCancelSent = true;
    const taskId = run.taskId;
    runtimeClient(run.baseUrl, AbortSignal.timeout(5000), this.callerHeaders().values)
      .cancelTask({ id: taskId })
      .then((res) => {
        if ('error' in res) this.o.logger.warn({ run_id: run.runId, task_id: taskId, error: res.error }, 'the runtime refused tasks/cancel');
      })
      .catch((err) => this.o.logger.warn({ run_id: run.runId, task_id: taskId, err: (err as Error).message }, 'tasks/cancel failed'))
      .finally(() => run.controller.abort());
  }

  /** The A2A calls' credential: the connection profile's header when one is set (it replaces the
   * control token's Authorization), else the control token. Never logged or stored. */
  private callerHeaders(): { values: Record<string, string>; profile: boolean } {
    const p = this.o.connection?.() ?? null;
    return p ? { values: { [p.header]: p.value }, profile: true } : { values: this.o.runtime.controlHeaders(), profile: false };
  }

  private recordIds(run: ActiveRun, ids: { contextId?: string; taskId?: string }): void {
    const patch: RunPatch = {};
    if (ids.contextId && ids.contextId !== run.contextId) patch.context_id = run.contextId = ids.contextId;
    if (ids.taskId && ids.taskId !== run.taskId) patch.task_id = run.taskId = ids.taskId;
    // Written with the log's next batch of the run's events, not in a commit of its own.
    if (patch.context_id || patch.task_id) this.o.log.patchRun(run.runId, patch);
  }
}
