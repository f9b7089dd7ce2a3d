// The OpenTelemetry sink's span processor (docs/runtime-traces.md, "OpenTelemetry"; D-79):
// the request path never waits on the collector. onEnd() only appends the ended span to a
// bounded buffer; one exporter loop sends it in order, a batch at a time (at most 512 spans,
// gathered for BATCH_DELAY_MS (1 s), or at once when 512 wait), and on a failure retries the same batch after a pause that
// grows to 5 s, so spans made during an outage go out after it, in the order they ended. Past
// TRACE_OTLP_BUFFER spans the oldest are dropped and counted, as the NATS sink does.
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';

export const BATCH_DELAY_MS = 1_000;
export const BATCH_MAX = 512;
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

export interface ExportStats {
  state: 'idle' | 'exporting' | 'retrying' | 'closed';
  exported: number;
  buffered: number;
  dropped: number;
  failed_exports: number;
  last_error: string | null;
}

export class OrderedExportProcessor implements SpanProcessor {
  private readonly queue: ReadableSpan[] = [];
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private closed = false;
  private wakeRetry: (() => void) | null = null;
  /** A flush is under way: the loop sends everything, not one batch a window. */
  private flushing = false;
  private readonly stats: ExportStats = { state: 'idle', exported: 0, buffered: 0, dropped: 0, failed_exports: 0, last_error: null };

  constructor(
    private readonly exporter: SpanExporter,
    private readonly bufferMax: number,
  ) {}

  onStart(): void {}

  onEnd(span: ReadableSpan): void {
    if (this.closed) return;
    this.queue.push(span);
    if (this.queue.length > this.bufferMax) {
      const over = this.queue.length - this.bufferMax;
      this.queue.splice(0, over);
      this.stats.dropped += over;
    }
    if (this.running) return;
    if (this.queue.length >= BATCH_MAX) {
      if (this.timer) clearTimeout(this.timer);
      this.start();
    } else this.timer ??= setTimeout(() => this.start(), BATCH_DELAY_MS).unref();
  }

  status(): ExportStats {
    return { ...this.stats, buffered: this.queue.length };
  }

  private start(): void {
    this.timer = null;
    this.running ??= this.drain().finally(() => {
      this.running = null;
      if (this.queue.length && !this.closed) this.timer ??= setTimeout(() => this.start(), BATCH_DELAY_MS).unref();
    });
  }

  private async drain(): Promise<void> {
    let pause = RETRY_MIN_MS;
    while (this.queue.length > 0) {
      const batch = this.queue.slice(0, BATCH_MAX);
      this.stats.state = 'exporting';
      const result = await this.send(batch);
      if (result.code === ExportResultCode.SUCCESS) {
        // Remove what was sent; the buffer may have lost its oldest meanwhile (drops are from the front).
        const last = this.queue.indexOf(batch[batch.length - 1]!);
        if (last >= 0) this.queue.splice(0, last + 1);
        this.stats.exported += batch.length;
        pause = RETRY_MIN_MS;
        // Spans that ended during the export wait for the next batch window unless a full
        // batch is waiting (or a flush asked for everything): a busy runtime sends a few
        // large exports a second, not one per export's round trip (docs/performance.md).
        if (this.queue.length < BATCH_MAX && !this.flushing && !this.closed) break;
        continue;
      }
      this.stats.failed_exports += 1;
      this.stats.last_error = result.error?.message ?? 'export failed';
      if (this.closed) break;
      this.stats.state = 'retrying';
      await new Promise<void>((r) => {
        this.wakeRetry = r;
        setTimeout(r, pause).unref();
      });
      this.wakeRetry = null;
      pause = Math.min(pause * 2, RETRY_MAX_MS);
    }
    if (this.stats.state !== 'closed') this.stats.state = 'idle';
  }

  private send(batch: ReadableSpan[]): Promise<ExportResult> {
    return new Promise((resolve) => {
      try {
        this.exporter.export(batch, resolve);
      } catch (err) {
        resolve({ code: ExportResultCode.FAILED, error: err as Error });
      }
    });
  }

  /** Sends what is buffered now (used by tests and on shutdown). */
  async forceFlush(): Promise<void> {
    this.flushing = true;
    try {
      do {
        if (this.timer) clearTimeout(this.timer);
        this.timer = null;
        this.start();
        while (this.running) await this.running;
      } while (this.queue.length > 0 && !this.closed);
    } finally {
      this.flushing = false;
    }
  }

  /** Sends what is buffered for up to `graceMs`, then shuts the exporter down. */
  async shutdown(graceMs = 2_000): Promise<void> {
    const flushed = this.forceFlush();
    await Promise.race([flushed, new Promise((r) => setTimeout(r, graceMs).unref())]);
    this.closed = true;
    this.wakeRetry?.();
    this.stats.state = 'closed';
    await this.exporter.shutdown().catch(() => undefined);
  }
}
