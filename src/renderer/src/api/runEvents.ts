// Follows a run's event stream (spec 4.3 rule 4): fetch + eventsource-parser rather than
// EventSource, so a reconnect can send `Last-Event-ID` with the last seq we applied. Events
// are deduplicated by seq, so a replay after a dropped connection repeats nothing, and the
// cursor makes the server resend everything after it, so nothing is lost. Each event is read
// with the shared RunEventSchema; one this client does not read is skipped, its seq applied.
import { isActive, RunEventSchema, type RunEvent } from '../../../shared/playground.ts';
import { apiUrl } from './client.ts';
import { readSse } from './sse.ts';

export type StreamConnection = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface FollowOptions {
  runId: string;
  /** Resume after this seq (0 = replay everything). */
  after?: number;
  signal: AbortSignal;
  onEvent: (event: RunEvent) => void;
  onConnection?: (state: StreamConnection, detail?: string) => void;
  /** Delays between reconnect attempts, in ms; the last one repeats. */
  backoff?: number[];
}

const DEFAULT_BACKOFF = [250, 500, 1000, 2000, 4000];

/** True for the event after which the server ends the stream (spec 4.3 rule 4). */
export function isTerminalEvent(e: RunEvent): boolean {
  return e.kind === 'run.status' && !isActive(e.status);
}

class FatalStreamError extends Error {}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * Resolves when the run's terminal event has been delivered or the signal aborts. Drops,
 * server errors and streams that end early are retried with the last applied seq.
 */
export async function followRunEvents(opts: FollowOptions): Promise<void> {
  const { runId, signal, onEvent, onConnection } = opts;
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  let lastSeq = opts.after ?? 0;
  let terminal = false;
  let attempt = 0;

  while (!signal.aborted && !terminal) {
    onConnection?.(attempt === 0 ? 'connecting' : 'reconnecting');
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastSeq > 0) headers['last-event-id'] = String(lastSeq);
      const res = await fetch(apiUrl(`/runs/${encodeURIComponent(runId)}/events`), { headers, signal, cache: 'no-store' });
      if (res.status === 404) throw new FatalStreamError('This run no longer exists.');
      if (!res.ok || !res.body) throw new Error(`event stream answered ${res.status}`);
      onConnection?.('live');
      attempt = 0;

      await readSse(res.body, (message) => {
        let body: unknown;
        try {
          body = JSON.parse(message.data);
        } catch {
          return; // not ours: ignore rather than stop the stream
        }
        const own = (body as { seq?: unknown } | null)?.seq;
        const seq = typeof own === 'number' ? own : Number(message.id);
        if (!Number.isFinite(seq) || seq <= lastSeq) return; // already applied
        lastSeq = seq;
        const parsed = RunEventSchema.safeParse(body);
        if (!parsed.success) return; // a kind or shape this client does not read
        const event: RunEvent = { ...parsed.data, seq };
        onEvent(event);
        if (isTerminalEvent(event)) terminal = true;
      });
    } catch (err) {
      if (signal.aborted) break;
      if (err instanceof FatalStreamError) {
        onConnection?.('failed', err.message);
        return;
      }
    }
    if (terminal || signal.aborted) break;
    // The stream dropped (or ended before the terminal event): come back after lastSeq.
    onConnection?.('reconnecting');
    await sleep(backoff[Math.min(attempt, backoff.length - 1)], signal);
    attempt += 1;
  }
  if (!signal.aborted) onConnection?.('ended');
}
