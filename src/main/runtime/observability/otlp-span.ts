// Finished spans for the OpenTelemetry exporter, built once a span has ended (D-98): the
// sink knows a span's whole story when its end event arrives, so it hands the SDK's OTLP
// exporter the record the exporter reads (the SDK's `ReadableSpan`) instead of driving the
// SDK's live `Span` through start, attribute updates and end. The SDK still encodes, sends,
// samples (its samplers decide per trace) and describes the resource.
import { type Attributes, type HrTime, type SpanContext, type SpanKind, type SpanStatus, TraceFlags } from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { randomFillSync } from 'node:crypto';

/** The SDK's default limit of events a span keeps; the rest are counted as dropped. */
export const EVENT_LIMIT = 128;

/** Milliseconds since the epoch as OpenTelemetry's [seconds, nanoseconds]. */
export function hrTime(ms: number): HrTime {
  const s = Math.floor(ms / 1000);
  return [s, Math.round((ms - s * 1000) * 1e6)];
}

function duration(start: HrTime, end: HrTime): HrTime {
  let s = end[0] - start[0];
  let ns = end[1] - start[1];
  if (ns < 0) {
    s -= 1;
    ns += 1e9;
  }
  return [s, ns];
}

// Random ids from a pool filled a few kilobytes at a time: an id is a slice of it as hex.
const pool = Buffer.alloc(4096);
let used = pool.length;
function randomHex(bytes: number): string {
  for (;;) {
    if (used + bytes > pool.length) {
      randomFillSync(pool);
      used = 0;
    }
    const hex = pool.toString('hex', used, used + bytes);
    used += bytes;
    if (!/^0+$/.test(hex)) return hex; // an all-zero id is invalid in OpenTelemetry
  }
}
export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);

/** What the sink fills in for a span; the rest of ReadableSpan is the same for every span. */
export interface SpanFields {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  startMs: number;
  endMs: number;
  attributes: Attributes;
  status: SpanStatus;
  events?: TimedEvent[];
  droppedEvents?: number;
}

/** An ended span in the shape the SDK's exporters read. */
export class FinishedSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext?: SpanContext;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly duration: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links = [];
  readonly events: TimedEvent[];
  readonly ended = true;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount: number;
  readonly droppedLinksCount = 0;
  private readonly context: SpanContext;

  constructor(
    f: SpanFields,
    readonly resource: Resource,
    readonly instrumentationScope: InstrumentationScope,
  ) {
    this.name = f.name;
    this.kind = f.kind;
    this.context = { traceId: f.traceId, spanId: f.spanId, traceFlags: TraceFlags.SAMPLED };
    if (f.parentSpanId) this.parentSpanContext = { traceId: f.traceId, spanId: f.parentSpanId, traceFlags: TraceFlags.SAMPLED };
    this.startTime = hrTime(f.startMs);
    // An end before the start (clocks of two events) is shown as a zero-length span.
    this.endTime = f.endMs >= f.startMs ? hrTime(f.endMs) : this.startTime;
    this.duration = duration(this.startTime, this.endTime);
    this.status = f.status;
    this.attributes = f.attributes;
    this.events = f.events ?? [];
    this.droppedEventsCount = f.droppedEvents ?? 0;
  }

  spanContext(): SpanContext {
    return this.context;
  }
}
