// The server-owned run executor (issue 3 section 3). It moves each run through
//   queued -> preparing -> running -> completed | input_required | failed | cancelled | interrupted
// appending run.status / run.phase / output.delta / trace / diagnostic / run.output events,
// and drives the agent runtime over A2A `message/stream` with the official client.
//
// Every transition to a terminal state goes through `finish`, which writes the row, the
// final parts and the terminal event in one transaction and happens at most once per run:
// whatever comes later (a late trace, the end of an aborted stream) is dropped.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Message, MessageSendParams, Part, TaskState, TaskStatus } from '@a2a-js/sdk';
import type { PhaseName, PhaseState, RunStatus, ScoreEntry, TaggedPart } from '../../../shared/playground.ts';
import type { EventLog } from '../events/log.ts';
import { a2aToTagged, taggedToA2A } from '../parts.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { PlaygroundStore, RunPatch, RunRow } from '../store/store.ts';
import { errorBodyOf, isConnectionError, runtimeClient } from './a2a.ts';
import type { ApplyOutcome, ProjectDiagnostic, RuntimeHandle } from './runtime.ts';

/** spec 4.3 rule 8 and issue 3 section 7: the reserved metadata key that carries the
 * capture token. It exists only on the wire to the runtime: never stored, shown or exported. */
import { RESERVED_CAPTURE_KEY as RESERVED_METADATA_KEY } from '../../../shared/runtime-contract.ts';

export { RESERVED_METADATA_KEY };

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
  /** The studio's project watcher: edits not applied yet join a run's changed files, and the
   * outcome of applying them is reported back (studio/project/state.ts). */
  project?: {
    /** Resolves when changes being applied right now are applied. */
    settled(): Promise<void>;
    takePending(): string[];
    recordOutcome(diagnostics: ProjectDiagnostic[]): void;
    /** The diagnostics of the last load of the files on disk (empty when they load). */
    diagnostics(): ProjectDiagnostic[];
    /** The project's files now (their contents kept in the blob store). */
    snapshot(): { fingerprint: string; files: Record<string, string>; sizes: Record<string, number> };
  };
}

interface ActiveRun {
  runId: string;
  controller: AbortController;
  finished: boolean;
  phase: PhaseName;
  contextId: string | null;
  taskId: string | null;
  /** Runtime process generation that serves the invocation. */
  generation: number | null;
  baseUrl: string | null;
  captureToken: string | null;
  scores: ScoreEntry[];
  createdAt: number;
  startedAt: number | null;
  /** A user cancel arrived before the task id: cancel the A2A task as soon as it is known. */
  cancelRemote: boolean;
  remoteCancelSent: boolean;
  /** Text streamed so far: a run that ends before its answer keeps it, marked partial. */
  streamed: string;
}

const OPTIONAL_SCORE_KEYS = ['reason', 'passStatus', 'scope', 'node', 'duration_ms'] as const;

/** spec 2.6: a score entry from an `evaluation.result` trace event, with only the optional
 * keys the payload has. */
export function scoreFrom(data: Record<string, unknown>): ScoreEntry | null {
  if (typeof data.evaluator !== 'string') return null;
  const score = typeof data.score === 'number' && Number.isFinite(data.score) ? data.score : null;
  const entry: ScoreEntry = { evaluator: data.evaluator, score };
  for (const key of OPTIONAL_SCORE_KEYS) {
    if (data[key] !== undefined) (entry as unknown as Record<string, unknown>)[key] = data[key];
  }
  return entry;
}

export class RunExecutor {
  private readonly runs = new Map<string, ActiveRun>();
  private readonly tokens = new Map<string, ActiveRun>();
  private readonly readyTimeoutMs: number;
  private readonly cancelTimeoutMs: number;
  private readonly unsubscribeExit: () => void;
  private stopping = false;

  constructor(private readonly o: ExecutorOptions) {
    this.readyTimeoutMs = o.readyTimeoutMs ?? 30_000;
    this.cancelTimeoutMs = o.cancelTimeoutMs ?? 10_000;
    this.unsubscribeExit = o.runtime.onExit((generation) => this.onRuntimeExit(generation));
  }

  /** The studio's project state (studio/project/state.ts), known once both exist. */
  attachProject(project: NonNullable<ExecutorOptions['project']>): void {
    this.o.project = project;
  }

  get activeCount(): number {
    return this.runs.size;
  }

  /** Issue 3 section 4: runs a crash (or a kill) left active end `interrupted`,
   * reason `studio_shutdown`, when the studio starts again. Answers how many. */
  recover(): number {
    const rows = this.o.store.activeRuns();
    for (const row of rows) {
      if (this.runs.has(row.run_id)) continue;
      this.writeEnd(row.run_id, 'interrupted', 'studio_shutdown', statusParts('interrupted', 'studio_shutdown'), {}, []);
    }
    return rows.length;
  }

  /** Starts the background work of a run that was just inserted as `queued`. */
  start(runId: string): void {
    const row = this.o.store.getRun(runId);
    if (!row) return;
    const ctx: ActiveRun = {
      runId,
      controller: new AbortController(),
      finished: false,
      phase: 'queue',
      contextId: row.context_id,
      taskId: row.task_id,
      generation: null,
      baseUrl: null,
      captureToken: null,
      scores: [],
      createdAt: Date.parse(row.created_at),
      startedAt: null,
      cancelRemote: false,
      remoteCancelSent: false,
      streamed: '',
    };
    this.runs.set(runId, ctx);
    // The request that created the run answers 202 before any work starts (spec 4.3 rule 1).
    setImmediate(() => {
      this.execute(ctx, row).catch((err) => {
        this.o.logger.error({ err, run_id: runId }, 'run executor failed');
        this.finish(ctx, 'failed', 'internal_error', [{ kind: 'error', message: `The studio failed to run this: ${(err as Error).message}` }]);
      });
    });
  }

  /** DELETE /runs/{id}: ends the run `cancelled`, reason `user_cancelled`, at once, and
   * cancels its A2A task too. Answers false when the run is not active here. */
  cancel(runId: string): boolean {
    const ctx = this.runs.get(runId);
    if (!ctx) return false;
    const invoking = ctx.phase === 'invoke';
    if (!this.finish(ctx, 'cancelled', 'user_cancelled', [...statusParts('cancelled', 'user_cancelled'), ...partialText(ctx)])) return false;
    if (!invoking) ctx.controller.abort();
    else if (ctx.taskId) this.cancelRemoteTask(ctx);
    else {
      // The task id arrives with the stream's first event; keep the stream open until
      // then so tasks/cancel can name the task, but never longer than cancelTimeoutMs.
      ctx.cancelRemote = true;
      setTimeout(() => ctx.controller.abort(), this.cancelTimeoutMs).unref();
    }
    return true;
  }

  /** Trace capture (issue 3 section 7): events the runtime posts under a capture token.
   * Answers false for a token that belongs to no active run. */
  capture(token: string, events: readonly Record<string, unknown>[]): boolean {
    const ctx = this.tokens.get(token);
    if (!ctx || ctx.finished) return false;
    let scored = false;
    for (const event of events) {
      const { name, ...data } = event;
      delete data[RESERVED_METADATA_KEY];
      this.o.log.append(ctx.runId, 'trace', { name: String(name), data });
      if (name === 'evaluation.result') {
        const score = scoreFrom(data);
        if (score) {
          ctx.scores.push(score);
          scored = true;
        }
      }
    }
    if (scored) this.o.store.updateRun(ctx.runId, { scores: ctx.scores });
    return true;
  }

  /** Studio shutdown (issue 3 section 4): every active run ends `interrupted`, reason
   * `studio_shutdown`; their A2A streams are closed. */
  shutdown(): void {
    this.stopping = true;
    for (const ctx of [...this.runs.values()]) {
      this.finish(ctx, 'interrupted', 'studio_shutdown', [...statusParts('interrupted', 'studio_shutdown'), ...partialText(ctx)]);
      ctx.controller.abort();
    }
    this.recover();
    this.unsubscribeExit();
  }

  // ---------------------------------------------------------------------------------

  private async execute(ctx: ActiveRun, row: RunRow): Promise<void> {
    if (ctx.finished) return;
    // The client's changed files, plus edits the studio saw on disk and has not applied yet
    // (after any reload already under way, so the run never starts on the old code).
    await this.o.project?.settled();
    if (ctx.finished) return;
    const changed = [...new Set([...row.changed_files, ...(this.o.project?.takePending() ?? [])])];
    this.phase(ctx, 'queue', 'completed', { queue_ms: Date.now() - ctx.createdAt });
    ctx.phase = 'prepare';
    this.setStatus(ctx, 'preparing');
    this.phase(ctx, 'prepare', 'started', { changed_files: changed });

    let applied: 'none' | 'reload' | 'restart' = 'none';
    if (changed.length > 0) {
      // Issue 3 section 3: the runtime validates and applies (reload, else restart); the
      // studio never loads the project itself.
      const outcome = await this.apply();
      this.o.project?.recordOutcome('diagnostics' in outcome ? outcome.diagnostics : []);
      if (ctx.finished) return;
      if ('diagnostics' in outcome) {
        const { diagnostics } = outcome;
        this.failValidation(ctx, diagnostics);
        return;
      }
      applied = outcome.applied;
    } else {
      // The files on disk do not load (the runtime still serves the last good ones): a run
      // would answer with code the author no longer has, so it fails with the real cause.
      const broken = this.o.project?.diagnostics() ?? [];
      if (broken.length) return this.failValidation(ctx, broken);
    }
    const baseUrl = await this.o.runtime.waitReady(this.readyTimeoutMs);
    if (ctx.finished) return;
    if (!baseUrl) return this.unavailable(ctx, 'prepare');
    this.phase(ctx, 'prepare', 'completed', { changed_files: changed, applied });
    await this.invoke(ctx, row, baseUrl);
  }

  /** The code the run runs with: its fingerprint, and each file's content linked to the run
   * as a blob (so it is kept, and deleted, with the run's session). */
  private codeOf(ctx: ActiveRun): RunPatch {
    let snap: ReturnType<NonNullable<ExecutorOptions['project']>['snapshot']> | undefined;
    try {
      snap = this.o.project?.snapshot();
    } catch (err) {
      this.o.logger.warn({ err: (err as Error).message, run_id: ctx.runId }, 'the code fingerprint could not be taken');
    }
    if (!snap) return {};
    const now = new Date().toISOString();
    for (const [file, sha] of Object.entries(snap.files)) this.o.store.linkBlob(ctx.runId, sha, snap.sizes[file] ?? 0, now);
    return { code_fingerprint: snap.fingerprint, code_files: snap.files };
  }

  private async apply(): Promise<ApplyOutcome> {
    try {
      return await this.o.runtime.applyChanges();
    } catch (err) {
      return { diagnostics: [{ file: '.', message: `the changed files could not be applied: ${(err as Error).message}` }] };
    }
  }

  private async invoke(ctx: ActiveRun, row: RunRow, baseUrl: string): Promise<void> {
    ctx.phase = 'invoke';
    ctx.baseUrl = baseUrl;
    ctx.generation = this.o.runtime.generation;
    ctx.captureToken = randomBytes(24).toString('base64url');
    this.tokens.set(ctx.captureToken, ctx);
    ctx.startedAt = Date.now();
    this.setStatus(ctx, 'running', { started_at: new Date(ctx.startedAt).toISOString(), ...this.codeOf(ctx) });
    this.phase(ctx, 'invoke', 'started', {
      ...(ctx.contextId ? { context_id: ctx.contextId } : {}),
      ...(ctx.taskId ? { task_id: ctx.taskId } : {}),
    });

    const metadata = row.metadata;
    const message: Message = {
      kind: 'message',
      messageId: randomUUID(),
      role: 'user',
      parts: taggedToA2A(row.input_parts, this.o.blobs),
      ...(ctx.contextId ? { contextId: ctx.contextId } : {}),
      ...(ctx.taskId ? { taskId: ctx.taskId } : {}),
    };
    const params: MessageSendParams = { message, metadata: { ...metadata, [RESERVED_METADATA_KEY]: { capture_token: ctx.captureToken } } };
    const generation = ctx.generation;
    let received = 0;
    let chunks = 0;
    let artifact: Part[] | null = null;
    let final: TaskStatus | null = null;

    try {
      const client = runtimeClient(baseUrl, ctx.controller.signal);
      for await (const ev of client.sendMessageStream(params)) {
        received += 1;
        if (ev.kind === 'task') this.recordIds(ctx, ev.contextId, ev.id);
        else if (ev.kind === 'status-update' || ev.kind === 'artifact-update') this.recordIds(ctx, ev.contextId, ev.taskId);
        if (ctx.finished) {
          if (ctx.cancelRemote && ctx.taskId) this.cancelRemoteTask(ctx);
          if (ctx.controller.signal.aborted || ctx.remoteCancelSent) break;
          continue;
        }
        if (final) continue;
        if (ev.kind === 'artifact-update') {
          if (ev.lastChunk) artifact = ev.artifact.parts;
          else {
            for (const p of ev.artifact.parts) {
              if (p.kind !== 'text' || !p.text) continue;
              ctx.streamed += p.text;
              chunks += 1;
              this.o.log.append(ctx.runId, 'output.delta', { text: p.text });
            }
          }
        } else if (ev.kind === 'status-update') {
          if (ev.final || isFinalState(ev.status.state)) final = ev.status;
        } else if (ev.kind === 'task') {
          if (isFinalState(ev.status.state)) final = ev.status;
        } else if (ev.kind === 'message') {
          final = { state: 'completed', message: ev };
        }
      }
    } catch (err) {
      if (ctx.finished) return;
      // A dead runtime process explains a broken stream; the supervisor's exit event may
      // arrive a moment after the socket error.
      const died = await this.o.runtime.waitExit(generation, 1500);
      if (ctx.finished) return;
      if (died) return this.interruptByRestart(ctx);
      if (received === 0 && isConnectionError(err)) return this.unavailable(ctx, 'invoke');
      const text = (err as Error).message ?? String(err);
      this.phase(ctx, 'invoke', 'failed', { reason: 'runtime_error', message: text });
      this.finish(ctx, 'failed', 'runtime_error', [...statusParts('failed', 'runtime_error'), { kind: 'error', message: text }]);
      return;
    }
    if (ctx.finished) return;
    if (!final) {
      if (await this.o.runtime.waitExit(generation, 1500)) return this.interruptByRestart(ctx);
      if (ctx.finished) return;
      const text = 'The runtime ended the stream without a final status.';
      this.phase(ctx, 'invoke', 'failed', { reason: 'runtime_error', message: text });
      this.finish(ctx, 'failed', 'runtime_error', [...statusParts('failed', 'runtime_error'), { kind: 'error', message: text }]);
      return;
    }
    this.complete(ctx, final, artifact, ctx.streamed, chunks);
  }

  /** Maps the A2A final state (spec 3) to the run's terminal state and stored output. */
  private complete(ctx: ActiveRun, final: TaskStatus, artifact: Part[] | null, streamed: string, chunks: number): void {
    const state = final.state;
    const messageParts = final.message?.parts;
    this.phase(ctx, 'invoke', state === 'completed' || state === 'input-required' ? 'completed' : 'failed', { a2a_state: state, chunks });
    if (state === 'completed') {
      const source = artifact ?? messageParts ?? (streamed ? [{ kind: 'text', text: streamed } as Part] : []);
      const out = a2aToTagged(source, this.o.blobs);
      this.finish(ctx, 'completed', null, out.parts, {}, out.blobs);
    } else if (state === 'input-required') {
      const out = a2aToTagged(messageParts, this.o.blobs);
      this.finish(ctx, 'input_required', null, [...out.parts, { kind: 'status', status: 'input_required' }], {}, out.blobs);
    } else if (state === 'failed' || state === 'rejected') {
      const body = errorBodyOf(messageParts) ?? errorBodyOf(artifact ?? undefined);
      const text = typeof body?.errorMessage === 'string' ? body.errorMessage : textOf(messageParts) || 'The agent failed.';
      const parts: TaggedPart[] = [{ kind: 'error', message: text, ...(typeof body?.errorCode === 'string' ? { code: body.errorCode } : {}) }];
      if (body) parts.push({ kind: 'data', data: body });
      this.finish(ctx, 'failed', state === 'rejected' ? 'agent_rejected' : 'agent_error', parts);
    } else if (state === 'canceled') {
      this.finish(ctx, 'cancelled', 'runtime_cancelled', statusParts('cancelled', 'runtime_cancelled'));
    } else {
      // auth-required or an unknown state: nothing the Playground can continue.
      this.finish(ctx, 'failed', state === 'auth-required' ? 'auth_required' : 'agent_error', [
        ...statusParts('failed', state),
        { kind: 'error', message: textOf(messageParts) || `The agent ended in state '${state}'.` },
      ]);
    }
  }

  /** The project does not load: its diagnostics as events, and the run failed project_validation. */
  private failValidation(ctx: ActiveRun, diagnostics: ProjectDiagnostic[]): void {
    for (const d of diagnostics) {
      this.o.log.append(ctx.runId, 'diagnostic', {
        severity: 'error',
        message: d.message,
        file: d.file,
        ...(d.line !== undefined ? { line: d.line } : {}),
        ...(d.column !== undefined ? { column: d.column } : {}),
        ...(d.field !== undefined ? { field: d.field } : {}),
      });
    }
    this.phase(ctx, 'prepare', 'failed', { reason: 'project_validation', diagnostics: diagnostics.length });
    const message = `The project did not validate (${diagnostics.length} problem${diagnostics.length === 1 ? '' : 's'}); see the diagnostics.`;
    this.finish(ctx, 'failed', 'project_validation', [...statusParts('failed', 'project_validation'), { kind: 'error', message }]);
  }

  private unavailable(ctx: ActiveRun, phase: PhaseName): void {
    // A runtime that cannot start because the project does not load: say that, with the
    // diagnostics, rather than asking the user to start the runtime by hand.
    const diagnostics = this.o.runtime.startDiagnostics?.();
    if (diagnostics?.length) return this.failValidation(ctx, diagnostics);
    // spec 6.2: the failed phase carries `recommended_run_command`.
    const command = this.o.runtime.recommendedRunCommand();
    const detail = this.o.runtime.unavailableDetail();
    this.phase(ctx, phase, 'failed', { reason: 'runtime_unavailable', ...(detail ? { detail } : {}) });
    const message = `The agent runtime is not reachable${detail ? ` (${detail})` : ''}. To see why, run it yourself: ${command}`;
    this.finish(ctx, 'failed', 'runtime_unavailable', [...statusParts('failed', 'runtime_unavailable'), { kind: 'error', message }], {
      recommended_run_command: command,
    });
  }

  private interruptByRestart(ctx: ActiveRun): void {
    this.phase(ctx, 'invoke', 'failed', { reason: 'runtime_restarted' });
    this.finish(ctx, 'interrupted', 'runtime_restarted', [...statusParts('interrupted', 'runtime_restarted'), ...partialText(ctx)]);
    ctx.controller.abort();
  }

  /** The supervisor saw a runtime process exit: runs it was serving end `interrupted`,
   * reason `runtime_restarted` (issue 3 section 4). */
  private onRuntimeExit(generation: number): void {
    for (const ctx of [...this.runs.values()]) {
      if (ctx.phase === 'invoke' && ctx.generation === generation && !ctx.finished) this.interruptByRestart(ctx);
    }
  }

  private cancelRemoteTask(ctx: ActiveRun): void {
    if (ctx.remoteCancelSent || !ctx.taskId || !ctx.baseUrl) return;
    ctx.remoteCancelSent = true;
    const taskId = ctx.taskId;
    runtimeClient(ctx.baseUrl, AbortSignal.timeout(5000))
      .cancelTask({ id: taskId })
      .then((res) => {
        if ('error' in res) this.o.logger.warn({ run_id: ctx.runId, task_id: taskId, error: res.error }, 'the runtime refused tasks/cancel');
      })
      .catch((err) => this.o.logger.warn({ run_id: ctx.runId, task_id: taskId, err: (err as Error).message }, 'tasks/cancel failed'))
      .finally(() => ctx.controller.abort());
  }

  private recordIds(ctx: ActiveRun, contextId: string | undefined, taskId: string | undefined): void {
    const patch: RunPatch = {};
    if (contextId && contextId !== ctx.contextId) patch.context_id = ctx.contextId = contextId;
    if (taskId && taskId !== ctx.taskId) patch.task_id = ctx.taskId = taskId;
    if (patch.context_id || patch.task_id) this.o.store.updateRun(ctx.runId, patch);
  }

  private setStatus(ctx: ActiveRun, status: RunStatus, patch: RunPatch = {}): void {
    if (ctx.finished) return;
    this.o.store.transaction(() => {
      this.o.store.updateRun(ctx.runId, { status, ...patch });
      this.o.log.append(ctx.runId, 'run.status', { status });
    });
  }

  private phase(ctx: ActiveRun, phase: PhaseName, state: PhaseState, detail: Record<string, unknown> = {}): void {
    if (ctx.finished) return;
    this.o.log.append(ctx.runId, 'run.phase', { phase, state, ...detail });
  }

  /** The one way a run ends. Answers false when it had already ended. */
  private finish(
    ctx: ActiveRun,
    status: RunStatus,
    reason: string | null,
    parts: TaggedPart[],
    detail: Record<string, unknown> = {},
    blobs: { sha256: string; size: number }[] = [],
  ): boolean {
    if (ctx.finished) return false;
    ctx.finished = true;
    this.runs.delete(ctx.runId);
    if (ctx.captureToken) this.tokens.delete(ctx.captureToken);
    this.writeEnd(ctx.runId, status, reason, parts, detail, blobs, ctx.scores);
    const now = Date.now();
    this.o.logger.info(
      {
        run_id: ctx.runId,
        status,
        reason,
        queue_ms: (ctx.startedAt ?? now) - ctx.createdAt,
        exec_ms: ctx.startedAt ? now - ctx.startedAt : null,
      },
      'run ended',
    );
    return true;
  }

  private writeEnd(
    runId: string,
    status: RunStatus,
    reason: string | null,
    parts: TaggedPart[],
    detail: Record<string, unknown>,
    blobs: { sha256: string; size: number }[],
    scores?: ScoreEntry[],
  ): void {
    const now = new Date().toISOString();
    const ok = status === 'completed' || status === 'input_required';
    this.o.store.transaction(() => {
      this.o.store.updateRun(runId, { status, reason, ended_at: now, output_parts: parts, ...(scores?.length ? { scores } : {}) });
      for (const b of blobs) this.o.store.linkBlob(runId, b.sha256, b.size, now);
      this.o.log.append(runId, 'run.output', { parts });
      this.o.log.append(runId, 'run.phase', {
        phase: 'complete',
        state: ok ? 'completed' : 'failed',
        status,
        ...(reason ? { reason } : {}),
        ...detail,
      });
      this.o.log.append(runId, 'run.status', { status, ...(reason ? { reason } : {}) });
    });
  }

  get isStopping(): boolean {
    return this.stopping;
  }
}

function isFinalState(state: TaskState): boolean {
  return state !== 'submitted' && state !== 'working';
}

/** The text a run streamed before it was stopped, marked as not the whole answer. */
function partialText(ctx: ActiveRun): TaggedPart[] {
  return ctx.streamed ? [{ kind: 'text', text: ctx.streamed, partial: true }] : [];
}

function statusParts(status: RunStatus | string, reason: string): TaggedPart[] {
  return [{ kind: 'status', status, reason }];
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');
}
