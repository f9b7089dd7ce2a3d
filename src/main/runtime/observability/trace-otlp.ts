// Trace sink to an OpenTelemetry collector over OTLP/HTTP (docs/runtime-traces.md,
// "OpenTelemetry"; D-78). Built on the OpenTelemetry JS SDK: each invocation is a trace whose
// root span is the invocation (`invoke_agent <agent>`), with a span per node execution under
// it (from `span.start` / `span.end`) and a span per model call under the node that made it
// (from `model.call`, with the GenAI semantic conventions' `gen_ai.*` attributes). Other
// trace events (routing, guardrail, evaluation results) are events on the invocation span.
// Spans go to the exporter through OrderedExportProcessor (otlp-export.ts): in order, never on
// the request path, kept through a collector outage up to TRACE_OTLP_BUFFER spans.
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { Logger } from 'pino';
import type { TraceEvent, TraceSink } from './trace.ts';
import { OrderedExportProcessor, type ExportStats } from './otlp-export.ts';
import { shownEndpoint, type OtlpSettings } from './otlp-settings.ts';
import { invocationAttributes, modelCallAttributes, nodeAttributes, eventAttributes } from './otlp-attributes.ts';

export interface OtlpSinkStatus extends ExportStats {
  endpoint: string;
  protocol: OtlpSettings['protocol'];
  sampler: string;
}

interface OpenInvocation {
  root: Span;
  spans: Map<string, Span>;
  /** When each node span started (ms): a model call never starts before its node. */
  starts: Map<string, number>;
}

function sampler(s: OtlpSettings): Sampler {
  const base = s.sampler.replace('parentbased_', '');
  const root = base === 'always_off' ? new AlwaysOffSampler() : base === 'traceidratio' ? new TraceIdRatioBasedSampler(s.ratio) : new AlwaysOnSampler();
  return s.sampler.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

const time = (iso: unknown): Date | undefined => (typeof iso === 'string' ? new Date(iso) : undefined);

export class OtlpTraceSink implements TraceSink {
  private readonly provider: BasicTracerProvider;
  private readonly processor: OrderedExportProcessor;
  private readonly tracer;
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
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: o.serviceName, ...(o.replicaId ? { 'service.instance.id': o.replicaId } : {}) }),
      sampler: sampler(o),
      spanProcessors: [this.processor],
    });
    this.tracer = this.provider.getTracer('agent-studio-runtime');
  }

  emit(event: TraceEvent): void {
    try {
      this.handle(event);
    } catch (err) {
      // A sink must not throw (trace.ts); say once that spans are being lost.
      if (!this.warned) this.o.log.warn({ err: (err as Error).message, event: event.name }, 'OpenTelemetry sink could not record a trace event');
      this.warned = true;
    }
  }

  private handle(e: TraceEvent): void {
    const taskId = String(e.task_id ?? '');
    if (e.name === 'invoke.start') {
      const root = this.tracer.startSpan(
        `invoke_agent ${this.o.agentId || 'agent'}`,
        { kind: SpanKind.SERVER, startTime: time(e.ts), attributes: invocationAttributes(e) },
        ROOT_CONTEXT,
      );
      this.open.set(taskId, { root, spans: new Map(), starts: new Map() });
      return;
    }
    const inv = this.open.get(taskId);
    if (!inv) return; // began before this sink existed
    if (e.name === 'span.start') {
      const parent = inv.spans.get(String(e.parent_span_id)) ?? inv.root;
      const span = this.tracer.startSpan(String(e.node), { startTime: time(e.ts), attributes: nodeAttributes(e) }, trace.setSpan(ROOT_CONTEXT, parent));
      inv.spans.set(String(e.span_id), span);
      inv.starts.set(String(e.span_id), Date.parse(e.ts));
    } else if (e.name === 'span.end') {
      const span = inv.spans.get(String(e.span_id));
      if (!span) return;
      span.setAttributes(nodeAttributes(e));
      const error = e.error as { message?: string; errorCode?: string } | undefined;
      if (e.status === 'failed')
        span.setStatus({ code: SpanStatusCode.ERROR, message: error?.message }).setAttribute(ATTR_ERROR_TYPE, error?.errorCode ?? 'error');
      span.end(time(e.ts));
    } else if (e.name === 'model.call') {
      const parent = inv.spans.get(String(e.parent_span_id)) ?? inv.root;
      const name = `chat${e.request_model ? ` ${e.request_model}` : ''}`;
      // A node's start is when LangGraph's stream reported it, which can be a moment after its
      // model call began: the call is shown from its node's start at the earliest.
      const startTime = new Date(Math.max(Date.parse(String(e.started_at)), inv.starts.get(String(e.parent_span_id)) ?? 0));
      const span = this.tracer.startSpan(name, { kind: SpanKind.CLIENT, startTime, attributes: modelCallAttributes(e) }, trace.setSpan(ROOT_CONTEXT, parent));
      if (e.status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR, message: String(e.error ?? '') }).setAttribute(ATTR_ERROR_TYPE, 'model_error');
      span.end(time(e.ts));
    } else if (e.name === 'invoke.end') {
      this.open.delete(taskId);
      for (const span of inv.spans.values()) if (span.isRecording()) span.end(time(e.ts)); // a span left open ends with its run
      inv.root.setAttributes(invocationAttributes(e));
      if (e.state === 'failed')
        inv.root.setStatus({ code: SpanStatusCode.ERROR, message: String(e.errorReason ?? '') }).setAttribute(ATTR_ERROR_TYPE, String(e.errorCode ?? 'error'));
      inv.root.end(time(e.ts));
    } else {
      inv.root.addEvent(e.name, eventAttributes(e), time(e.ts));
    }
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
