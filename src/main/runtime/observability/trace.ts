// observability/ owns what the runtime tells about itself: trace events and their sinks
// (log, NATS, studio capture), bounded and redacted values, the status counters, and the
// request context that uncaught failures are logged with.
//
// Trace events per invocation (spec 6.3) and the sinks they go to: the structured log (here),
// NATS (trace-nats.ts), and the studio capture, which delivers a Playground invocation's
// events to the studio under its capture token (docs/runtime-traces.md).
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import { CAPTURE_BATCH_MS, type CaptureBody } from '../../../shared/runtime-contract.ts';

export interface TraceEvent {
  name: string;
  ts: string;
  [field: string]: unknown;
}

export interface TraceSink {
  /** Receives events as they happen; must not throw. `at` is the event's time (its `ts`) in
   * milliseconds since the epoch, so a sink that needs a number does not parse `ts` again. */
  emit(event: TraceEvent, at?: number): void;
  /** Whether an event of this name would be kept (absent: every event is). The tracer does
   * not build events no sink keeps: node spans cost CPU to describe (docs/performance.md). */
  keeps?(name: string): boolean;
  /** False when the sink ignores the values events carry (a span's `update`, `interrupts`):
   * when no one reads them they are not copied (absent: it reads them). */
  readonly keepsValues?: boolean;
}

/** The structured-log sink: one line per invocation at info (`invoke.end`, which carries the
 * state, duration, errors and cache_stats), every other event at debug (LOG_LEVEL=debug shows
 * them all). A line per event at info cost about 0.7 ms of CPU a request (docs/performance.md). */
export class LogTraceSink implements TraceSink {
  constructor(private readonly log: Logger) {}
  keeps(name: string): boolean {
    return name === 'invoke.end' ? this.log.isLevelEnabled('info') : this.log.isLevelEnabled('debug');
  }
  emit(event: TraceEvent): void {
    if (event.name === 'invoke.end') this.log.info({ trace: event }, `trace ${event.name}`);
    else this.log.debug({ trace: event }, `trace ${event.name}`);
  }
}

/** Events wait at most this long before they are posted: the studio shows a run's spans
 * and trace events while it runs, in a few posts rather than one per event (D-82). */
export const CAPTURE_FLUSH_MS = CAPTURE_BATCH_MS;

/** Collects one invocation's events and posts them to the studio as they come (batched for
 * CAPTURE_FLUSH_MS, or the longer hold the studio asked for, D-111); `flush` resolves once
 * the studio has every event so far, so the runtime publishes the final A2A status only
 * after delivery. */
export class CaptureBuffer {
  private pending: TraceEvent[] = [];
  private delivering: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private recorded = 0;

  constructor(
    private readonly url: string,
    private readonly token: string,
    private readonly log: Logger,
    private readonly batchMs: number = CAPTURE_FLUSH_MS,
  ) {}

  add(event: TraceEvent): void {
    this.pending.push(event);
    // Recorded calls carry bodies up to 1 MiB each (outbound/recording.ts): a post holds at
    // most four of them, inside the studio's 10 MB capture limit.
    if (event.key !== undefined && ++this.recorded >= 4) void this.flush();
    else if (this.pending.length >= 50) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.batchMs);
  }

  flush(): Promise<void> {
    this.recorded = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
    const events = this.pending;
    this.pending = [];
    if (events.length === 0) return this.delivering;
    this.delivering = this.delivering.then(() => this.post(events));
    return this.delivering;
  }

  private async post(events: TraceEvent[]): Promise<void> {
    try {
      const status = await postJson(this.url, JSON.stringify({ capture_token: this.token, events } satisfies CaptureBody), 5000);
      // 404: the run already ended in the studio (a cancel races the last events); expected.
      if (status === 404) this.log.debug('studio capture closed for this run; late trace events dropped');
      else if (status < 200 || status >= 300) this.log.warn({ status }, 'studio capture refused trace events');
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'studio capture unreachable');
    }
  }
}

// Kept-alive connections to the studio: a capture post over node:http costs about half the
// CPU of one over fetch (docs/performance.md, "Experiments").
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

// The capture URL parsed once (it is the same for every post): parsing it again for each post
// showed in the experiment profile (docs/performance.md, "Experiments").
const targets = new Map<string, http.RequestOptions>();

function targetOf(url: string): http.RequestOptions {
  let t = targets.get(url);
  if (!t) {
    const u = new URL(url);
    t = {
      protocol: u.protocol,
      hostname: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port || undefined,
      path: `${u.pathname}${u.search}`,
      ...(u.username ? { auth: `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` } : {}),
    };
    if (targets.size < 16) targets.set(url, t);
  }
  return t;
}

/** POSTs a JSON body and answers the response status (its body is read and dropped). */
function postJson(url: string, body: string, timeoutMs: number): Promise<number> {
  const secure = url.startsWith('https:');
  return new Promise((resolve, reject) => {
    const req = (secure ? https : http).request(
      {
        ...targetOf(url),
        method: 'POST',
        agent: secure ? agents.https : agents.http,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

// An event's `ts` is the ISO string of its millisecond: the part up to the second is made once
// a second (Date#toISOString costs about a microsecond, and a request has a dozen events or more).
let isoSecond = -1;
let isoPrefix = '';
/** `new Date(at).toISOString()`, for a time after 1970 with a four-digit year. */
export function isoTime(at: number): string {
  const second = Math.floor(at / 1000);
  if (second !== isoSecond) {
    isoSecond = second;
    isoPrefix = new Date(second * 1000).toISOString().slice(0, 20); // 2026-11-28T22:30:05.
  }
  const ms = at - second * 1000;
  return `${isoPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

/** One invocation's tracer: stamps ids and labels, fans out to the sinks and the capture. */
export class InvocationTracer {
  constructor(
    private readonly sinks: TraceSink[],
    private readonly base: Record<string, unknown>,
    private readonly capture: CaptureBuffer | null,
  ) {}

  /** Whether an event of this name reaches anyone: the studio's capture or a sink keeping it. */
  wants(name: string): boolean {
    return this.capture !== null || this.sinks.some((s) => s.keeps?.(name) ?? true);
  }

  /** Whether a studio captures this invocation (a studio run records its calls, D-93). */
  capturing(): boolean {
    return this.capture !== null;
  }

  /** Whether anyone reads the values of a span's end (the studio, a sink that keeps them). */
  wantsValues(): boolean {
    return this.capture !== null || this.sinks.some((s) => (s.keeps?.('span.end') ?? true) && s.keepsValues !== false);
  }

  emit(name: string, fields: Record<string, unknown> = {}): void {
    if (!this.wants(name)) return;
    const at = Date.now();
    const event: TraceEvent = { name, ts: isoTime(at), ...this.base, ...fields };
    for (const sink of this.sinks) sink.emit(event, at);
    this.capture?.add(event);
  }

  flush(): Promise<void> {
    return this.capture?.flush() ?? Promise.resolve();
  }
}
