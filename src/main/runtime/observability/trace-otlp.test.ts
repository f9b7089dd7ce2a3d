import { describe, expect, it } from 'vitest';
import pino from 'pino';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { OtlpTraceSink } from './trace-otlp.ts';
import { otlpSettings } from './otlp-settings.ts';
import type { TraceEvent } from './trace.ts';

/** An exporter that keeps what it is given. */
function keeper() {
  const spans: ReadableSpan[] = [];
  const e = {
    spans,
    export(batch: ReadableSpan[], done: (r: ExportResult) => void) {
      spans.push(...batch);
      done({ code: ExportResultCode.SUCCESS });
    },
    shutdown: async () => undefined,
  };
  return e;
}

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
/** One invocation: a node whose model call ends before it, a routing event, the end. */
function invocation(task: string): TraceEvent[] {
  const base = { task_id: task, context_id: `ctx-${task}`, agent_id: 'a', generation: 1 };
  return [
    { name: 'invoke.start', ts: at(0), ...base, message_id: 'm' },
    { name: 'span.start', ts: at(1), ...base, span_id: 's1', node: 'respond', kind: 'node', step: 1 },
    { name: 'routing', ts: at(2), ...base, intents: ['refund'] },
    {
      name: 'model.call',
      ts: at(5),
      ...base,
      parent_span_id: 's1',
      node: 'respond',
      started_at: at(0),
      provider: 'scripted',
      request_model: 'm1',
      status: 'completed',
    },
    { name: 'span.end', ts: at(6), ...base, span_id: 's1', node: 'respond', kind: 'node', step: 1, status: 'completed', duration_ms: 5 },
    { name: 'invoke.end', ts: at(7), ...base, state: 'completed', duration_ms: 7 },
  ];
}

function sink(env: Record<string, string>, exporter: ReturnType<typeof keeper>) {
  const settings = otlpSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', ...env }, 'a');
  return new OtlpTraceSink({ ...settings, agentId: 'a', replicaId: null, log: pino({ level: 'silent' }) }, exporter as unknown as SpanExporter);
}

describe('the OpenTelemetry sink’s spans', () => {
  it('builds each span when it ends: one trace, parents, times, attributes, and the run’s events on its root', async () => {
    const e = keeper();
    const s = sink({}, e);
    for (const ev of invocation('t1')) s.emit(ev);
    await s.flush();
    expect(e.spans.map((x) => x.name)).toEqual(['chat m1', 'respond', 'invoke_agent a']);
    const [model, node, root] = e.spans as [ReadableSpan, ReadableSpan, ReadableSpan];
    expect(new Set(e.spans.map((x) => x.spanContext().traceId)).size).toBe(1);
    expect(root.parentSpanContext).toBeUndefined();
    expect(node.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(model.parentSpanContext?.spanId).toBe(node.spanContext().spanId);
    // The model call is shown from its node's start at the earliest.
    expect(model.startTime).toEqual(node.startTime);
    expect(node.startTime).toEqual([Math.floor((t0 + 1) / 1000), ((t0 + 1) % 1000) * 1e6]);
    expect(node.attributes).toMatchObject({ 'agent_studio.node': 'respond', 'agent_studio.status': 'completed', 'agent_studio.task_id': 't1' });
    expect(root.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'agent_studio.task_id': 't1', 'agent_studio.state': 'completed' });
    expect(root.events.map((x) => x.name)).toEqual(['routing']);
    expect(root.events[0]!.attributes).toEqual({ intents: ['refund'] });
    await s.close();
  });

  it('asks the sampler once per invocation: always_off keeps nothing, a ratio of 1 keeps every run', async () => {
    const off = keeper();
    const s1 = sink({ OTEL_TRACES_SAMPLER: 'always_off' }, off);
    for (const ev of invocation('t1')) s1.emit(ev);
    await s1.flush();
    expect(off.spans).toHaveLength(0);
    const all = keeper();
    const s2 = sink({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '1' }, all);
    for (const ev of [...invocation('t1'), ...invocation('t2')]) s2.emit(ev);
    await s2.flush();
    expect(all.spans).toHaveLength(6);
    expect(new Set(all.spans.map((x) => x.spanContext().traceId)).size).toBe(2);
    await s1.close();
    await s2.close();
  });
});
