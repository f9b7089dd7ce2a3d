// Trace sink to an OpenTelemetry collector over OTLP/HTTP (docs/runtime-traces.md,
// "OpenTelemetry"; D-78). Built on the OpenTelemetry JS SDK: each invocation is a trace whose
// root span is the invocation (`invoke_agent <agent>`), with a span per node execution under
// it (from `span.start` / `span.end`) and a span per model call under the node that made it
// (from `model.call`, with the GenAI semantic conventions' `gen_ai.*` attributes). Other
// trace events (routing, guardrail, evaluation results) are events on the invocation span.
// A span is built once it has ended, as the record the SDK's exporter reads (otlp-span.ts,
// D-98); the SDK's sampler decides once per invocation. Spans go to the exporter through
// OrderedExportProcessor (otlp-export.ts): in order, never on the request path, kept through a
// collector outage up to TRACE_OTLP_BUFFER spans.
import { ROOT_CONTEXT, SamplingDecision, SpanKind, SpanStatusCode, type Attributes, type SpanStatus } from '@opentelemetry/api';
import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
  type TimedEvent,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { TraceEvent, TraceSink } from './trace.ts';
import { OrderedExportProcessor, type ExportStats } from './otlp-export.ts';
import { shownEndpoint, type OtlpSettings } from './otlp-settings.ts';
import { invocationAttributes, modelCallAttributes, nodeAttributes, eventAttributes } from './otlp-attributes.ts';
import { EVENT_LIMIT, FinishedSpan, hrTime, newSpanId, newTraceId, type SpanFields } from './otlp-span.ts';

export interface OtlpSinkStatus extends ExportStats {
  endpoint: string;
  protocol: OtlpSettings['protocol'];
  sampler: string;
}

/** A node span between its start and end: the start event is all it needs to keep. */
interface OpenNode {
  spanId: string;
  start: TraceEvent;
  startMs: number;
}

interface OpenInvocation {
  traceId: string;
  rootId: string;
  start: TraceEvent;
  startMs: number;
  /** Events on the invocation span (routing, guardrail, evaluation results). */
  events: TimedEvent[];
  dropped: number;
  /** Open node spans by the runtime's span id. */
  spans: Map<string, OpenNode>;
  /** Span ids of every node span, open or ended: model calls and child spans find their parent. */
  ids: Map<string, { spanId: string; startMs: number }>;
}

function sampler(s: OtlpSettings): Sampler {
  const base = s.sampler.replace('parentbased_', '');
  const root = base === 'always_off' ? new AlwaysOffSampler() : base === 'traceidratio' ? new TraceIdRatioBasedSampler(s.ratio) : new AlwaysOnSampler();
  return s.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

const ms = (iso: unknown): number => (typeof iso === 'string' ? Date.parse(iso) : Date.now());
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };
const SCOPE = { name: 'agent-studio-runtime' };

export class OtlpTraceSink implements TraceSink {
  private readonly processor: OrderedExportProcessor;
  private readonly sampler: Sampler;
  private readonly resource: Resource;
  private readonly open = new Map<string, OpenInvocation>();
  private warned = false;
  /** Node spans carry their identity and outcome, not the state update (bounded copies cost CPU). */
  readonly keepsValues = false;

  constructor(
    private readonly o: OtlpSettings & { agentId: string; replicaId: string | null; log: Logger },
    exporter?: SpanExporter,
  ) {
    const Exporter = o.protocol === 'http/json' ? JsonExporter : ProtoExporter;
    this.processor = new OrderedExportProcessor(exporter ?? new Exporter({ url: o.endpoint, headers: o.headers, timeoutMillis: o.timeoutMs }), o.bufferMax);
    this.resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: o.serviceName, ...(o.replicaId ? { 'service.instance.id': o.replicaId } : {}) });
    this.sampler = sampler(o);
  }

  emit(event: TraceEvent, at?: number): void {
    try {
      this.handle(event, at ?? ms(event.ts));
    } catch (err) {
      // A sink must not throw (trace.ts); say once that spans are being lost.
      if (!this.warned) this.o.log.warn({ err: (err as Error).message, event: event.name }, 'OpenTelemetry sink could not record a trace event');
      this.warned = true;
    }
  }

  private finish(f: SpanFields): void {
    this.processor.onEnd(new FinishedSpan(f, this.resource, SCOPE));
  }

  /** One event; `at` is its time in milliseconds. */
  private handle(e: TraceEvent, at: number): void {
    const taskId = String(e.task_id ?? '');
    if (e.name === 'invoke.start') return this.begin(taskId, e, at);
    const inv = this.open.get(taskId);
    if (!inv) return; // began before this sink existed, or the sampler left it out
    if (e.name === 'span.start') {
      const spanId = newSpanId();
      const key = String(e.span_id);
      inv.spans.set(key, { spanId, start: e, startMs: at });
      inv.ids.set(key, { spanId, startMs: at });
    } else if (e.name === 'span.end') {
      const key = String(e.span_id);
      const open = inv.spans.get(key);
      if (!open) return;
      inv.spans.delete(key);
      this.endNode(inv, open, e, at);
    } else if (e.name === 'model.call') {
      const parent = inv.ids.get(String(e.parent_span_id));
      const attributes = modelCallAttributes(e);
      const failed = e.status === 'failed';
      if (failed) attributes[ATTR_ERROR_TYPE] = 'model_error';
      this.finish({
        name: `chat${e.request_model ? ` ${e.request_model}` : ''}`,
        kind: SpanKind.CLIENT,
        traceId: inv.traceId,
        spanId: newSpanId(),
        parentSpanId: parent?.spanId ?? inv.rootId,
        // A call is shown from its node's start at the earliest (the events' timestamps are
        // milliseconds; the call's own start is taken where it began).
        startMs: Math.max(Date.parse(String(e.started_at)) || 0, parent?.startMs ?? 0),
        endMs: at,
        attributes,
        status: failed ? { code: SpanStatusCode.ERROR, message: String(e.error ?? '') } : UNSET,
      });
    } else if (e.name === 'invoke.end') {
      this.open.delete(taskId);
      for (const open of [...inv.spans.values()].reverse()) this.endNode(inv, open, null, at); // a span left open ends with its run
      const attributes = invocationAttributes(inv.start);
      invocationAttributes(e, attributes);
      const failed = e.state === 'failed';
      if (failed) attributes[ATTR_ERROR_TYPE] = String(e.errorCode ?? 'error');
      this.finish({
        name: `invoke_agent ${this.o.agentId || 'agent'}`,
        kind: SpanKind.SERVER,
        traceId: inv.traceId,
        spanId: inv.rootId,
        startMs: inv.startMs,
        endMs: at,
        attributes,
        status: failed ? { code: SpanStatusCode.ERROR, message: String(e.errorReason ?? '') } : UNSET,
        events: inv.events,
        droppedEvents: inv.dropped,
      });
    } else if (inv.events.length < EVENT_LIMIT) {
      inv.events.push({ name: e.name, attributes: eventAttributes(e), time: hrTime(at), droppedAttributesCount: 0 });
    } else inv.dropped += 1;
  }

  /** A new trace, when the sampler keeps it (it decides once per invocation, at its root). */
  private begin(taskId: string, e: TraceEvent, at: number): void {
    const traceId = newTraceId();
    const name = `invoke_agent ${this.o.agentId || 'agent'}`;
    const decision = this.sampler.shouldSample(ROOT_CONTEXT, traceId, name, SpanKind.SERVER, {}, []).decision;
    // Not sampled: nothing is kept, and its later events find no open invocation.
    if (decision !== SamplingDecision.RECORD_AND_SAMPLED) return;
    this.open.set(taskId, { traceId, rootId: newSpanId(), start: e, startMs: at, events: [], dropped: 0, spans: new Map(), ids: new Map() });
  }

  /** A node span's end (`end` null: its run ended first, and it ends with it). */
  private endNode(inv: OpenInvocation, open: OpenNode, end: TraceEvent | null, endMs: number): void {
    const attributes: Attributes = nodeAttributes(open.start);
    let status = UNSET;
    if (end) {
      nodeAttributes(end, attributes);
      const error = end.error as { message?: string; errorCode?: string } | undefined;
      if (end.status === 'failed') {
        status = { code: SpanStatusCode.ERROR, message: error?.message };
        attributes[ATTR_ERROR_TYPE] = error?.errorCode ?? 'error';
      }
    }
    this.finish({
      name: String(open.start.node),
      kind: SpanKind.INTERNAL,
      traceId: inv.traceId,
      spanId: open.spanId,
      parentSpanId: inv.ids.get(String(open.start.parent_span_id))?.spanId ?? inv.rootId,
      startMs: open.startMs,
      endMs,
      attributes,
      status,
    });
  }

  status(): OtlpSinkStatus {
    const s = this.o;
    return {
      endpoint: shownEndpoint(s.endpoint),
      protocol: s.protocol,
      sampler: s.sampler + (s.sampler.endsWith('traceidratio') ? `(${s.ratio})` : ''),
      ...this.processor.status(),
    };
  }

  /** Exports what is buffered now (tests). */
  flush(): Promise<void> {
    return this.processor.forceFlush();
  }

  /** Exports what is buffered (up to `graceMs`), then stops. */
  async close(graceMs = 2_000): Promise<void> {
    await this.processor.shutdown(graceMs);
  }
}
