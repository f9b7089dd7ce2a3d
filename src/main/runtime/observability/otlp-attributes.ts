// Trace events as OpenTelemetry span attributes (docs/runtime-traces.md, "OpenTelemetry").
// Model calls follow the GenAI semantic conventions (`gen_ai.*`); the run, thread and node
// identity are `agent_studio.*` attributes (and `gen_ai.conversation.id` for the thread). The
// names are written out here rather than imported from the conventions' "incubating" entry
// point, as the OpenTelemetry project advises for attributes that are still in development.
import type { Attributes, AttributeValue } from '@opentelemetry/api';
import type { TraceEvent } from './trace.ts';

/** Fields every event carries that become identity attributes, not copied again as event data. */
const BASE_FIELDS = new Set(['name', 'ts', 'task_id', 'context_id', 'agent_id', 'generation']);

function put(out: Attributes, key: string, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out[key] = value as AttributeValue;
  else out[key] = JSON.stringify(value);
}

/** The invocation span: who, which run, which thread (and, at its end, how it ended); added to `out`. */
export function invocationAttributes(e: TraceEvent, out: Attributes = {}): Attributes {
  if (e.name === 'invoke.start') {
    put(out, 'gen_ai.operation.name', 'invoke_agent');
    put(out, 'gen_ai.agent.name', e.agent_id || undefined);
    put(out, 'gen_ai.agent.id', e.agent_id || undefined);
    put(out, 'gen_ai.conversation.id', e.context_id);
    put(out, 'agent_studio.task_id', e.task_id);
    put(out, 'agent_studio.context_id', e.context_id);
    put(out, 'agent_studio.generation', e.generation);
    put(out, 'agent_studio.message_id', e.message_id);
    put(out, 'enduser.id', e.user_id);
    return out;
  }
  put(out, 'agent_studio.state', e.state);
  put(out, 'agent_studio.duration_ms', e.duration_ms);
  put(out, 'agent_studio.chunks', e.chunks);
  put(out, 'agent_studio.error_code', e.errorCode);
  put(out, 'agent_studio.error_reason', e.errorReason);
  put(out, 'agent_studio.failed_node', e.node);
  const cache = e.cache_stats as Record<string, number> | undefined;
  if (cache) {
    put(out, 'gen_ai.usage.cache_read.input_tokens', cache.cache_read_tokens);
    put(out, 'gen_ai.usage.cache_creation.input_tokens', cache.cache_creation_tokens);
  }
  return out;
}

/** A node span: its LangGraph identity (start) and outcome (end); added to `out`. */
export function nodeAttributes(e: TraceEvent, out: Attributes = {}): Attributes {
  if (e.name === 'span.start') {
    put(out, 'agent_studio.task_id', e.task_id);
    put(out, 'agent_studio.context_id', e.context_id);
    put(out, 'agent_studio.node', e.node);
    put(out, 'agent_studio.span_id', e.span_id);
    put(out, 'agent_studio.kind', e.kind);
    put(out, 'agent_studio.step', e.step);
    return out;
  }
  put(out, 'agent_studio.status', e.status);
  put(out, 'agent_studio.duration_ms', e.duration_ms);
  const error = e.error as { source?: { file: string; line: number } } | undefined;
  if (error?.source) {
    put(out, 'code.file.path', error.source.file);
    put(out, 'code.line.number', error.source.line);
  }
  return out;
}

/** A model call: the GenAI semantic conventions for an inference span. Content only when the
 * event carries it (TRACE_MODEL_CONTENT). */
export function modelCallAttributes(e: TraceEvent): Attributes {
  const out: Attributes = {};
  put(out, 'gen_ai.operation.name', 'chat');
  put(out, 'gen_ai.provider.name', e.provider);
  put(out, 'gen_ai.system', e.provider); // the older name, still read by several viewers
  put(out, 'gen_ai.request.model', e.request_model);
  put(out, 'gen_ai.response.model', e.response_model);
  put(out, 'gen_ai.request.temperature', e.temperature);
  put(out, 'gen_ai.request.max_tokens', e.max_tokens);
  if (Array.isArray(e.finish_reasons) && e.finish_reasons.length) put(out, 'gen_ai.response.finish_reasons', e.finish_reasons);
  const usage = e.usage as Record<string, number> | null;
  if (usage) {
    put(out, 'gen_ai.usage.input_tokens', usage.input_tokens);
    put(out, 'gen_ai.usage.output_tokens', usage.output_tokens);
    put(out, 'gen_ai.usage.cache_read.input_tokens', usage.cache_read_tokens);
    put(out, 'gen_ai.usage.cache_creation.input_tokens', usage.cache_creation_tokens);
  }
  put(out, 'gen_ai.conversation.id', e.context_id);
  put(out, 'agent_studio.task_id', e.task_id);
  put(out, 'agent_studio.node', e.node);
  put(out, 'gen_ai.input.messages', e.input_messages);
  put(out, 'gen_ai.output.messages', e.output_messages);
  return out;
}

/** Any other trace event, as an event on the invocation span: its own fields, flattened. */
export function eventAttributes(e: TraceEvent): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(e)) if (!BASE_FIELDS.has(k)) put(out, k, v);
  return out;
}
