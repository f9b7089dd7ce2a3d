// Trace sink on NATS JetStream (spec 6.3 "structured log or message broker"; docs/runtime-traces.md,
// "NATS"). Every trace event goes to `<prefix>.<agent id>.<event name>` as the same JSON the
// structured-log sink writes, with a JetStream message id so that a retry after a lost ack is
// stored once. The request path never waits on the broker: emit() only appends to a bounded
// buffer; one publisher drains it in order, a window of publishes in flight, and on a failure
// retries from the first unacknowledged event (the ids make the retry safe). When NATS is slow
// or down the buffer fills; past its cap the oldest events are dropped and counted.
import crypto from 'node:crypto';
import { connectNats } from '../cluster/nats.ts';
import type { NatsSettings } from '../cluster/nats-settings.ts';
import { traceSubject } from '../cluster/nats-subjects.ts';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import type { TraceEvent, TraceSink } from './trace.ts';
import type { TraceStreamLimits } from '../settings-values.ts';
import { ensureTraceStream } from './trace-stream.ts';

export interface NatsSinkOptions {
  /** NATS_URL as given (shown in the status). */
  servers: string;
  /** How to connect: servers, credentials, TLS (cluster/nats-settings.ts). */
  nats: NatsSettings;
  /** Subject prefix (default `agent-studio.traces`). */
  prefix: string;
  agentId: string;
  /** JetStream stream capturing `<prefix>.>`; created when missing (default AGENT_TRACES). */
  stream: string;
  /** Events kept while NATS is slow or down (default 10,000). */
  bufferMax: number;
  /** The stream's limits (TRACE_NATS_MAX_AGE, _MAX_BYTES, _MAX_MSGS; settings-values.ts). */
  limits: TraceStreamLimits;
  log: Logger;
}

export interface NatsSinkStatus {
  state: 'connecting' | 'connected' | 'reconnecting' | 'closed';
  servers: string;
  subject_prefix: string;
  stream: string;
  published: number;
  buffered: number;
  dropped: number;
  last_error: string | null;
}

const WINDOW = 64;

export { subjectToken } from '../cluster/nats-subjects.ts';

export class NatsTraceSink implements TraceSink {
  private readonly queue: { subject: string; id: string; data: string }[] = [];
  private readonly boot = crypto.randomBytes(6).toString('hex');
  private seq = 0;
  private nc: NatsConnection | null = null;
  private js: JetStreamClient | null = null;
  private draining = false;
  private closed = false;
  private wake: (() => void) | null = null;
  private readonly stats: NatsSinkStatus;

  constructor(private readonly o: NatsSinkOptions) {
    this.stats = {
      state: 'connecting',
      servers: o.servers,
      subject_prefix: o.prefix,
      stream: o.stream,
      published: 0,
      buffered: 0,
      dropped: 0,
      last_error: null,
    };
    void this.run();
  }

  emit(event: TraceEvent): void {
    if (this.closed) return;
    const subject = traceSubject(this.o.prefix, this.o.agentId, event.name);
    this.queue.push({ subject, id: `${this.boot}-${++this.seq}`, data: JSON.stringify(event) });
    if (this.queue.length > this.o.bufferMax) {
      this.queue.splice(0, this.queue.length - this.o.bufferMax);
      this.stats.dropped = this.stats.dropped + 1;
    }
    this.wake?.();
  }

  status(): NatsSinkStatus {
    return { ...this.stats, buffered: this.queue.length };
  }

  /** Connects (retrying for ever), makes sure the stream exists, then publishes. */
  private async run(): Promise<void> {
    while (!this.closed && !this.js) {
      const nc = await connectNats(
        { nats: this.o.nats, name: `agent-runtime ${this.o.agentId}`, log: this.o.log, onError: (m) => (this.stats.last_error = m) },
        () => this.closed,
      );
      if (!nc) break;
      try {
        await ensureTraceStream(await jetstreamManager(nc), this.o.stream, `${this.o.prefix}.>`, this.o.limits, this.o.log);
        this.nc = nc;
        void this.watch(nc);
        this.js = jetstream(nc);
        this.stats.state = 'connected';
      } catch (err) {
        this.stats.last_error = (err as Error).message;
        this.o.log.warn({ err: this.stats.last_error, stream: this.o.stream }, 'NATS trace sink cannot set up its stream; events wait in its buffer');
        await nc.close().catch(() => undefined);
        await new Promise((r) => setTimeout(r, 1000).unref());
      }
    }
    await this.drain();
  }

  private async watch(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnecting') this.stats.state = 'reconnecting';
      else if (s.type === 'reconnect') {
        this.stats.state = 'connected';
        this.wake?.();
      }
    }
  }

  /** Publishes the queue in order, a window at a time; a failed window is retried from its
   * first unacknowledged event after a pause (JetStream drops the ones stored already). */
  private async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    while (!this.closed || this.queue.length > 0) {
      if (this.queue.length === 0 || !this.js) {
        if (this.closed) break;
        await new Promise<void>((r) => (this.wake = r));
        this.wake = null;
        continue;
      }
      const window = this.queue.slice(0, WINDOW);
      const results = await Promise.allSettled(window.map((m) => this.js!.publish(m.subject, m.data, { msgID: m.id, timeout: 2_000 })));
      let acked = 0;
      while (acked < results.length && results[acked].status === 'fulfilled') acked++;
      // Drop what was acknowledged, in order (the queue may have lost its oldest meanwhile).
      const firstId = this.queue[0]?.id;
      const shift = firstId === window[0].id ? acked : 0;
      this.queue.splice(0, shift);
      this.stats.published += acked;
      if (acked < results.length) {
        const failed = results[acked] as PromiseRejectedResult;
        this.stats.last_error = (failed.reason as Error)?.message ?? String(failed.reason);
        if (this.closed) break;
        await new Promise((r) => setTimeout(r, 250).unref());
      }
    }
    this.draining = false;
  }

  /** Publishes what is buffered (up to `graceMs`), then closes the connection. */
  async close(graceMs = 2_000): Promise<void> {
    this.closed = true;
    this.wake?.();
    const deadline = Date.now() + graceMs;
    while (this.queue.length > 0 && this.js && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    this.stats.state = 'closed';
    await this.nc?.drain().catch(() => undefined);
  }
}
