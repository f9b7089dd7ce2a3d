import { describe, expect, it, vi } from 'vitest';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { BATCH_DELAY_MS, BATCH_MAX, OrderedExportProcessor } from './otlp-export.ts';

/** An exporter that fails while `down`, recording what it accepted. */
function exporter() {
  const got: string[] = [];
  const e = {
    down: false,
    calls: 0,
    got,
    export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
      e.calls++;
      if (e.down) return done({ code: ExportResultCode.FAILED, error: new Error('collector down') });
      got.push(...spans.map((s) => s.name));
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => undefined,
  };
  return e;
}
const span = (name: string) => ({ name }) as unknown as ReadableSpan;

describe('the OpenTelemetry sink’s export buffer', () => {
  it('exports in end order, retries a failed batch whole, and sends each span once', async () => {
    const e = exporter();
    const p = new OrderedExportProcessor(e as unknown as SpanExporter, 100);
    e.down = true;
    for (const n of ['a', 'b', 'c']) p.onEnd(span(n));
    const flushing = p.forceFlush();
    await expect.poll(() => p.status().failed_exports).toBeGreaterThan(0);
    expect(p.status()).toMatchObject({ state: 'retrying', buffered: 3, last_error: 'collector down' });
    p.onEnd(span('d'));
    e.down = false;
    await flushing;
    await p.forceFlush();
    expect(e.got).toEqual(['a', 'b', 'c', 'd']);
    expect(p.status()).toMatchObject({ exported: 4, buffered: 0, dropped: 0 });
  });

  it('keeps at most its bound, dropping the oldest and counting them', async () => {
    const e = exporter();
    const p = new OrderedExportProcessor(e as unknown as SpanExporter, 3);
    for (const n of ['a', 'b', 'c', 'd', 'e']) p.onEnd(span(n));
    expect(p.status()).toMatchObject({ buffered: 3, dropped: 2 });
    await p.forceFlush();
    expect(e.got).toEqual(['c', 'd', 'e']);
    await p.shutdown();
    p.onEnd(span('late'));
    expect(p.status()).toMatchObject({ state: 'closed', buffered: 0 });
  });
});

describe('the OpenTelemetry sink’s export batches', () => {
  it('sends spans that end during an export with the next window, and a full batch at once', async () => {
    vi.useFakeTimers();
    try {
      const calls: number[] = [];
      let finish: (() => void) | null = null;
      const e = {
        export(spans: ReadableSpan[], done: (r: ExportResult) => void) {
          calls.push(spans.length);
          finish = () => done({ code: ExportResultCode.SUCCESS });
        },
        shutdown: async () => undefined,
      };
      const p = new OrderedExportProcessor(e as unknown as SpanExporter, 10_000);
      p.onEnd(span('a'));
      expect(calls).toEqual([]);
      await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS);
      expect(calls).toEqual([1]);
      p.onEnd(span('b')); // ends while the first export is under way
      finish!();
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toEqual([1]); // waits for the next window
      await vi.advanceTimersByTimeAsync(BATCH_DELAY_MS);
      expect(calls).toEqual([1, 1]);
      finish!();
      await vi.advanceTimersByTimeAsync(0);
      for (let i = 0; i < BATCH_MAX; i++) p.onEnd(span(`s${i}`));
      expect(calls).toEqual([1, 1, BATCH_MAX]); // a full batch does not wait
      finish!();
      await vi.advanceTimersByTimeAsync(0);
      expect(p.status()).toMatchObject({ exported: BATCH_MAX + 2, buffered: 0 });
    } finally {
      vi.useRealTimers();
    }
  });
});
