// What the executor holds for a run while it is active: its lifecycle, the ids and runtime
// it talks to, and what its A2A stream brought so far; and the A2A message it sends.
import { REPLAY_METADATA_KEY, type ReplayPlan, type RunReplay } from '../../../shared/recordings.ts';
import { replayPlan } from '../recordings/recordings.ts';
export { withMocks } from '../mocks/plan.ts';
import type { EventLog } from '../events/log.ts';
import { randomUUID } from 'node:crypto';
import type { Message, MessageSendParams } from '@a2a-js/sdk';
import { taggedToA2A } from '../parts.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { RunRecord } from '../store/store.ts';
import { CONTINUE_METADATA_KEY } from '../../../shared/thread-state.ts';
import { controlCredentialHeaders, RESERVED_DEBUG_KEY, type DebugControl } from '../../../shared/breakpoints.ts';
import { RESERVED_METADATA_KEY } from './capture.ts';
import { RunLifecycle } from './lifecycle.ts';
import type { RunSlots } from './slots.ts';
import { EMPTY_STREAM, type StreamOutcome, type StreamState } from './stream.ts';

export interface ActiveRun {
  readonly runId: string;
  readonly row: RunRecord;
  readonly lifecycle: RunLifecycle;
  /** Aborting it closes the run's A2A stream. */
  readonly controller: AbortController;
  readonly createdAt: number;
  contextId: string | null;
  taskId: string | null;
  /** Runtime process generation that serves the invocation. */
  generation: number | null;
  baseUrl: string | null;
  captureToken: string | null;
  /** How long the runtime may hold the run's trace events (an experiment's case, D-111);
   * null: the runtime's default (D-82). */
  readonly captureBatchMs: number | null;
  startedAt: number | null;
  /** What the A2A stream brought so far; its text is kept, marked partial, by a run that
   * ends before its answer. */
  stream: StreamState;
  outcome: StreamOutcome | null;
  /** What prepare applied: the changed files, and how the runtime took them. */
  prepared: { changed: string[]; applied: 'none' | 'reload' | 'restart' } | null;
  /** A user cancel arrived before the task id: cancel the A2A task as soon as it is known. */
  cancelRemote: boolean;
  remoteCancelSent: boolean;
  /** The runtime answered 401 to the connection profile's credential. */
  credentialRefused?: boolean;
  /** The experiment's invocation slots the run waits for (D-118), and whether it holds one. */
  readonly slots: RunSlots | null;
  holdsSlot: boolean;
}

/** How the executor runs a run it starts. */
export interface StartOptions {
  /** The trace capture's hold for a run no author is watching as it starts (D-111). */
  captureBatchMs?: number;
  /** The run's work starts right after the code that admitted it (its transaction), ahead of
   * pending I/O: an experiment's case has no request that must be answered first (D-117). */
  atOnce?: boolean;
  /** An experiment's run waits `queued` for one of these before it is prepared (D-118). */
  slots?: RunSlots;
}

/** A run just inserted `queued`, as the executor starts it. */
export function newActiveRun(row: RunRecord, opts: StartOptions = {}): ActiveRun {
  return {
    runId: row.run_id,
    row,
    lifecycle: new RunLifecycle(),
    controller: new AbortController(),
    createdAt: Date.parse(row.created_at),
    contextId: row.context_id,
    taskId: row.task_id,
    generation: null,
    baseUrl: null,
    captureToken: null,
    captureBatchMs: opts.captureBatchMs ?? null,
    startedAt: null,
    stream: EMPTY_STREAM,
    outcome: null,
    prepared: null,
    cancelRemote: false,
    remoteCancelSent: false,
    slots: opts.slots ?? null,
    holdsSlot: false,
  };
}

/** The `message/stream` params of a run: its input parts in its conversation (spec 4.1
 * rule 2), its user metadata and its capture token under the reserved key (spec 4.3 rule 8),
 * and its debug control under its own reserved key. A continue has no input: A2A wants one
 * part, so it sends an empty text the runtime does not read. */
export function messageOf(run: ActiveRun, blobs: BlobStore, debug?: DebugControl, replay?: ReplayPlan | null): MessageSendParams {
  const metadata = { ...run.row.metadata, ...(debug ? { [RESERVED_DEBUG_KEY]: debug } : {}), ...(replay ? { [REPLAY_METADATA_KEY]: replay } : {}) };
  const parts = taggedToA2A(run.row.input_parts, blobs);
  const message: Message = {
    kind: 'message',
    messageId: randomUUID(),
    role: 'user',
    parts: parts.length ? parts : [{ kind: 'text', text: '' }],
    ...(run.contextId ? { contextId: run.contextId } : {}),
    ...(run.taskId ? { taskId: run.taskId } : {}),
  };
  // A fork's run continues its new thread from the copied checkpoint with no new input.
  const fork = run.row.forked_from ? { [CONTINUE_METADATA_KEY]: true } : {};
  // A run under the debugger is followed step by step: it keeps the runtime's default hold.
  const batch = run.captureBatchMs !== null && !debug ? { batch_ms: run.captureBatchMs } : {};
  return { message, metadata: { ...metadata, [RESERVED_METADATA_KEY]: { capture_token: run.captureToken, ...batch }, ...fork } };
}

/** The header that lets a fork's run use the reserved continue key, and a replayed run the
 * reserved replay key: the studio's control credential, beside whatever credential the call
 * carries (a connection profile's). */
export function forkHeaders(run: ActiveRun, control: Record<string, string>, mocked = false): Record<string, string> {
  return run.row.forked_from || run.row.replay || mocked ? controlCredentialHeaders(control) : {};
}

/** A replayed run's recorded answers (recordings/, D-91), or null for any other run. */
export function replayPlanOf(row: ActiveRun['row'], log: EventLog, blobs: BlobStore): ReplayPlan | null {
  if (!row.replay) return null;
  const r = JSON.parse(row.replay) as RunReplay;
  return replayPlan(log, r.from_run_id, blobs, r.on_mismatch);
}
