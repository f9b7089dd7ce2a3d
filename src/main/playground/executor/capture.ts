// Trace capture (spec 4.3 rule 8, docs/playground-api.md "Trace capture"): every invocation
// carries a capture token under the reserved metadata key; the runtime posts the run's trace
// events back under it. A token is valid from the run's invoke until the run ends; the
// events become the run's `trace` events and, for `evaluation.result`, its scores.
import { randomBytes } from 'node:crypto';
import type { ScoreEntry } from '../../../shared/playground.ts';
import { RESERVED_CAPTURE_KEY } from '../../../shared/runtime-contract.ts';
import type { EventLog } from '../events/log.ts';
import type { PlaygroundStore } from '../store/store.ts';
import type { BlobStore } from '../store/blobs.ts';
import { isRecordedCall, offloadBodies } from '../recordings/recordings.ts';

/** The reserved metadata key that carries the capture token (spec 4.3 rule 8). It exists
 * only on the wire to the runtime: never stored, shown or exported. */
export const RESERVED_METADATA_KEY = RESERVED_CAPTURE_KEY;

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

interface Capture {
  runId: string;
  scores: ScoreEntry[];
  /** The `span.start` data of the spans without their `span.end` yet, by span id. */
  open: Map<string, Record<string, unknown>>;
}

/** The capture tokens of the runs being invoked, and the scores their traces carried. */
export class TraceCapture {
  private readonly byToken = new Map<string, Capture>();

  constructor(
    private readonly store: PlaygroundStore,
    private readonly log: EventLog,
    private readonly blobs?: BlobStore,
  ) {}

  /** A new token for a run about to be invoked. */
  open(runId: string): string {
    const token = randomBytes(24).toString('base64url');
    this.byToken.set(token, { runId, scores: [], open: new Map() });
    return token;
  }

  /** Ends the token (later posts are refused) and answers the scores captured under it and
   * the spans still open (their `span.start` data, in start order): the run's end closes
   * them (docs/runtime-traces.md "When a run ends"). */
  close(token: string | null): { scores: ScoreEntry[]; open: Record<string, unknown>[] } {
    if (!token) return { scores: [], open: [] };
    const capture = this.byToken.get(token);
    this.byToken.delete(token);
    return { scores: capture?.scores ?? [], open: [...(capture?.open.values() ?? [])] };
  }

  /** Events the runtime posted under a token: appended as the run's `trace` events.
   * Answers false for a token that belongs to no run being invoked. */
  accept(token: string, events: readonly Record<string, unknown>[]): boolean {
    const capture = this.byToken.get(token);
    if (!capture) return false;
    let scored = false;
    for (const event of events) {
      const { name, ...data } = event;
      delete data[RESERVED_METADATA_KEY];
      // A recorded call's large bodies go to the blob store (recordings/, D-92).
      if (this.blobs && isRecordedCall(name, data)) offloadBodies(data, capture.runId, this.blobs, this.store);
      const stored = this.log.append(capture.runId, 'trace', { name: String(name), data });
      const spanId = typeof data.span_id === 'string' ? data.span_id : null;
      if (stored && spanId && name === 'span.start' && !capture.open.has(spanId)) capture.open.set(spanId, { ts: stored.ts, ...data });
      else if (spanId && name === 'span.end') capture.open.delete(spanId);
      const score = name === 'evaluation.result' ? scoreFrom(data) : null;
      if (score) {
        capture.scores.push(score);
        scored = true;
      }
    }
    // The run's scores so far are written with the post's events, not in a commit of their own
    // (docs/performance.md, "Experiments").
    if (scored) this.log.patchRun(capture.runId, { scores: [...capture.scores] });
    return true;
  }
}
