// Reading the A2A `message/stream` of a run (spec 4.1): a pure fold of the stream's events
// into what the run needs, and the typed outcome the stream ended with. No I/O here: the
// executor appends the text deltas as `output.delta` events and decides, for a stream that
// broke or ended early, whether the runtime process died (docs/playground-api.md).
import type { Message, Part, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus, TaskStatusUpdateEvent } from '@a2a-js/sdk';

/** One event of an A2A stream, as the official client yields it. */
export type StreamEvent = Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

export interface StreamState {
  /** Events read, counted whether or not they changed anything. */
  readonly received: number;
  /** Text chunks streamed (artifact updates that are not the last chunk). */
  readonly chunks: number;
  /** The text streamed so far. */
  readonly streamed: string;
  /** The parts of the last-chunk artifact, the answer of a completed run. */
  readonly artifact: Part[] | null;
  /** The first final status; events after it are ignored. */
  readonly final: TaskStatus | null;
}

export const EMPTY_STREAM: StreamState = { received: 0, chunks: 0, streamed: '', artifact: null, final: null };

/** Common to the outcomes of a stream that reached a final status. */
interface Answer {
  /** The A2A final state (spec 3). */
  a2aState: TaskState;
  chunks: number;
}

/** What a stream ended with. `broken`: it threw; `ended_early`: it closed without a final status. */
export type StreamOutcome =
  | (Answer & { kind: 'completed'; parts: Part[] })
  | (Answer & { kind: 'input_required'; parts: Part[] | undefined })
  | (Answer & { kind: 'failed'; a2aState: 'failed' | 'rejected'; parts: Part[] | undefined; artifact: Part[] | null })
  | (Answer & { kind: 'canceled' })
  | (Answer & { kind: 'unsupported'; parts: Part[] | undefined })
  | { kind: 'ended_early' }
  | { kind: 'broken'; error: unknown; received: number };

/** The conversation and task ids an event names, if any. */
export function idsOf(ev: StreamEvent): { contextId?: string; taskId?: string } {
  if (ev.kind === 'task') return { contextId: ev.contextId, taskId: ev.id };
  if (ev.kind === 'status-update' || ev.kind === 'artifact-update') return { contextId: ev.contextId, taskId: ev.taskId };
  return {};
}

/** Folds one event into the state; `deltas` are the text chunks it streamed, in order. */
export function readEvent(state: StreamState, ev: StreamEvent): { state: StreamState; deltas: string[] } {
  const next = { ...state, received: state.received + 1 };
  if (state.final) return { state: next, deltas: [] };
  if (ev.kind === 'artifact-update') {
    if (ev.lastChunk) return { state: { ...next, artifact: ev.artifact.parts }, deltas: [] };
    const deltas = ev.artifact.parts.flatMap((p) => (p.kind === 'text' && p.text ? [p.text] : []));
    return { state: { ...next, chunks: next.chunks + deltas.length, streamed: next.streamed + deltas.join('') }, deltas };
  }
  if (ev.kind === 'status-update') {
    return { state: ev.final || isFinalState(ev.status.state) ? { ...next, final: ev.status } : next, deltas: [] };
  }
  if (ev.kind === 'task') return { state: isFinalState(ev.status.state) ? { ...next, final: ev.status } : next, deltas: [] };
  return { state: { ...next, final: { state: 'completed', message: ev } }, deltas: [] };
}

/** The outcome of a stream that ended (`error`: what it threw, if it did). */
export function streamOutcome(state: StreamState, ending: { error?: unknown } = {}): StreamOutcome {
  if ('error' in ending) return { kind: 'broken', error: ending.error, received: state.received };
  const { final, artifact, streamed, chunks } = state;
  if (!final) return { kind: 'ended_early' };
  const parts = final.message?.parts;
  const a2aState = final.state;
  switch (final.state) {
    case 'completed':
      // spec 4.1: the answer is the last-chunk artifact; a bare message, or the text
      // streamed, when the runtime sent none.
      return {
        kind: 'completed',
        a2aState,
        parts: artifact ?? parts ?? (streamed ? [{ kind: 'text', text: streamed }] : []),
        chunks,
      };
    case 'input-required':
      return { kind: 'input_required', a2aState, parts, chunks };
    case 'failed':
    case 'rejected':
      return { kind: 'failed', a2aState: final.state, parts, artifact, chunks };
    case 'canceled':
      return { kind: 'canceled', a2aState, chunks };
    default:
      return { kind: 'unsupported', a2aState, parts, chunks };
  }
}

/** The outcome of a whole recorded stream: the fold and the outcome in one call. */
export function outcomeOf(events: readonly StreamEvent[], ending: { error?: unknown } = {}): StreamOutcome {
  return streamOutcome(
    events.reduce((s, ev) => readEvent(s, ev).state, EMPTY_STREAM),
    ending,
  );
}

function isFinalState(state: TaskState): boolean {
  return state !== 'submitted' && state !== 'working';
}
