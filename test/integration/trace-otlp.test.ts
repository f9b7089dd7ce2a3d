// The OpenTelemetry trace sink (docs/runtime-traces.md, "OpenTelemetry") against a local
// OTLP/HTTP receiver: every span of a run (the invocation, each node, each model call with
// its gen_ai.* attributes) arrives once, in the order the spans ended, over protobuf and
// over JSON; a receiver outage does not fail runs, and the spans made during it arrive after.
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { TraceEvent } from '../../src/main/runtime/observability/trace.ts';
import { sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './helpers/otlp-receiver.ts';
import { waitFor } from './helpers/playground-studio.ts';

async function otlpStatus(rt: TestRuntime): Promise<Record<string, any>> {
  return ((await (await fetch(`${rt.url}api/v1/status`)).json()) as { data: { trace_sinks: Record<string, any> } }).data.trace_sinks.otlp;
}

/** What the receiver must get, from the events the runtime emitted: a span per node end, per
 * model call and per invocation end, in that order. */
function expectedSpans(events: TraceEvent[]): { kind: string; id: string }[] {
  return events
    .filter((e) => e.name === 'span.end' || e.name === 'model.call' || e.name === 'invoke.end')
    .map((e) =>
      e.name === 'invoke.end' ? { kind: 'invoke', id: String(e.task_id) } : { kind: e.name === 'model.call' ? 'model' : 'node', id: String(e.span_id) },
    );
}

function received(spans: ReceivedSpan[]): { kind: string; id: string }[] {
  return spans.map((s) =>
    s.attributes['gen_ai.operation.name'] === 'invoke_agent'
      ? { kind: 'invoke', id: String(s.attributes['agent_studio.task_id']) }
      : s.attributes['gen_ai.operation.name'] === 'chat'
        ? { kind: 'model', id: '' }
        : { kind: 'node', id: String(s.attributes['agent_studio.span_id']) },
  );
}

const send = async (rt: TestRuntime, text: string) => ((await rt.client.sendMessage(sendParams(text))) as { result: Task }).result;

describe('trace spans over OTLP/HTTP', () => {
  let receiver: OtlpReceiver | undefined;
  let rt: TestRuntime | undefined;
  afterEach(async () => {
    await rt?.close();
    await receiver?.close();
  });

  it('exports every span of a run once, in order, with GenAI attributes, across a collector outage (protobuf)', async () => {
    receiver = await startOtlpReceiver();
    rt = await startTestRuntime({
      env: { AGENT_ID: 'otlp-agent', TRACE_SINKS: 'log,otlp', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' },
    });
    const first = await send(rt, 'I want a refund for ORD-12345');
    expect(first.status.state).toBe('completed');
    await waitFor(async () => ((await otlpStatus(rt!)).exported >= expectedSpans(rt!.traces).length ? true : undefined), 15_000, 'the first run exported');
    expect(receiver.requests.every((r) => r.contentType === 'application/x-protobuf')).toBe(true);

    const spans = receiver.spans;
    const root = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent')!;
    expect(root).toMatchObject({ name: 'invoke_agent otlp-agent', parentSpanId: '' });
    expect(root.attributes).toMatchObject({
      'agent_studio.task_id': first.id,
      'gen_ai.conversation.id': first.contextId,
      'agent_studio.context_id': first.contextId,
      'gen_ai.agent.name': 'otlp-agent',
      'agent_studio.state': 'completed',
    });
    expect(root.resource['service.name']).toBe('otlp-agent');
    expect(root.events.map((e) => e.name)).toEqual(expect.arrayContaining(['guardrail', 'routing']));
    const nodes = spans.filter((s) => s.attributes['agent_studio.node']);
    const respond = nodes.find((s) => s.name === 'respond')!;
    expect(respond.parentSpanId).toBe(root.spanId);
    expect(respond.attributes).toMatchObject({ 'agent_studio.kind': 'node', 'agent_studio.status': 'completed', 'agent_studio.task_id': first.id });
    // A model call: an inference span under the node that made it, by the GenAI conventions.
    const model = spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat')!;
    expect(model.parentSpanId).toBe(respond.spanId);
    expect(model.kind).toBe(3); // SPAN_KIND_CLIENT
    expect(model.attributes).toMatchObject({ 'gen_ai.provider.name': 'scripted', 'gen_ai.request.model': 'scripted', 'agent_studio.node': 'respond' });
    expect(model.attributes['gen_ai.input.messages']).toBeUndefined(); // content is off by default
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(model.startNs >= respond.startNs && model.endNs <= respond.endNs).toBe(true);

    // The collector goes away: runs are answered as usual; their spans wait.
    await receiver.down();
    for (const text of ['Where is my order ORD-23456?', 'How do I reset my password?']) expect((await send(rt, text)).status.state).toBe('completed');
    await waitFor(async () => ((await otlpStatus(rt!)).failed_exports > 0 ? true : undefined), 15_000, 'an export to fail');
    expect((await otlpStatus(rt)).buffered).toBeGreaterThan(0);
    await receiver.up();
    const after = await waitFor(
      async () => {
        const s = await otlpStatus(rt!);
        return s.buffered === 0 && s.exported >= expectedSpans(rt!.traces).length ? s : undefined;
      },
      30_000,
      'the buffer to drain',
    );
    expect(after).toMatchObject({ dropped: 0, protocol: 'http/protobuf', endpoint: `${receiver.url}/v1/traces` });
    // Every span, in the order they ended, none twice.
    expect(received(receiver.spans).map((s) => (s.kind === 'model' ? { ...s, id: '' } : s))).toEqual(
      expectedSpans(rt.traces).map((s) => (s.kind === 'model' ? { ...s, id: '' } : s)),
    );
    expect(new Set(receiver.spans.map((s) => s.spanId)).size).toBe(receiver.spans.length);
    expect(new Set(receiver.spans.map((s) => s.traceId)).size).toBe(3);
  });

  it('speaks OTLP/JSON, sends the configured headers, carries content when asked, and never shows the headers', async () => {
    receiver = await startOtlpReceiver();
    rt = await startTestRuntime({
      env: {
        AGENT_ID: 'otlp-json',
        TRACE_SINKS: 'otlp',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=s3cret%20value,x-tenant=acme',
        OTEL_SERVICE_NAME: 'support-runtime',
        TRACE_MODEL_CONTENT: 'true',
      },
    });
    const task = await send(rt, 'How do I reset my password?');
    expect(task.status.state).toBe('completed');
    await waitFor(async () => ((await otlpStatus(rt!)).exported >= expectedSpans(rt!.traces).length ? true : undefined), 15_000, 'the run exported');
    expect(receiver.requests[0]).toMatchObject({ contentType: 'application/json' });
    expect(receiver.requests[0].headers).toMatchObject({ 'x-collector-key': 's3cret value', 'x-tenant': 'acme' });
    expect(received(receiver.spans).map((s) => s.kind)).toEqual(expectedSpans(rt.traces).map((s) => s.kind));
    const model = receiver.spans.find((s) => s.attributes['gen_ai.operation.name'] === 'chat')!;
    expect(model.resource['service.name']).toBe('support-runtime');
    expect(JSON.parse(String(model.attributes['gen_ai.input.messages']))[0]).toMatchObject({ role: 'system' });
    expect(JSON.parse(String(model.attributes['gen_ai.output.messages']))[0]).toMatchObject({ role: 'ai' });
    const status = await otlpStatus(rt);
    expect(status).toMatchObject({ protocol: 'http/json', endpoint: `${receiver.url}/v1/traces`, sampler: 'parentbased_always_on' });
    expect(JSON.stringify(status)).not.toContain('s3cret');
  });
});
