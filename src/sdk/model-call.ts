// One model call as the trace reports it (`model.call`, docs/runtime-traces.md): which
// provider and model, how long, the tokens (cached ones included), which node's task made
// it, and, only when asked, the messages. Built from LangChain's callback arguments: the
// `ls_*` metadata every chat model sets, LangGraph's task metadata, the message's usage.
import type { BaseMessage, UsageMetadata } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { messageRecord, messageRecords } from './replay-model.ts';
import { currentBranch } from './branch-context.ts';

export interface ModelCall {
  /** LangChain's run id for the call. */
  span_id: string;
  /** The LangGraph task (node span) that made it, when it ran in a node. */
  parent_span_id: string | null;
  node: string | null;
  /** The fan-out branch span inside that node (`<task id>/<index>`) and its name (`node[label]`). */
  branch_span_id: string | null;
  branch: string | null;
  /** ISO time the call started; the event's own `ts` is its end. */
  started_at: string;
  duration_ms: number;
  status: 'completed' | 'failed';
  /** `openai`, `anthropic`, `gcp.gemini`, or LangChain's name for another provider. */
  provider: string;
  request_model: string | null;
  response_model: string | null;
  temperature: number | null;
  max_tokens: number | null;
  finish_reasons: string[];
  usage: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_creation_tokens: number } | null;
  error?: string;
  input_messages?: { role: string; content: unknown }[];
  output_messages?: { role: string; content: unknown; tool_calls?: unknown }[];
  // Recorded calls (src/shared/recordings.ts, D-91): only while the run records or replays.
  kind?: 'model';
  key?: { node: string; branch: string | null; index: number; hash: string };
  params?: Record<string, unknown>;
  raw_request?: { method: string; url: string; headers: Record<string, string>; body: unknown };
  replayed?: boolean;
}

export interface OpenCall {
  thread: string;
  started: number;
  startedAt: string;
  provider: string;
  requestModel: string | null;
  temperature: number | null;
  maxTokens: number | null;
  task: string | null;
  node: string | null;
  branch: { span_id: string; node: string } | null;
  input?: { role: string; content: unknown }[];
  /** The client's invocation parameters, when the run records its calls. */
  params?: Record<string, unknown>;
}

/** LangChain's `ls_provider` to the GenAI semantic conventions' `gen_ai.provider.name`. */
const PROVIDERS: Record<string, string> = {
  openai: 'openai',
  anthropic: 'anthropic',
  google_genai: 'gcp.gemini',
  google_vertexai: 'gcp.vertex_ai',
  azure: 'azure.ai.openai',
};

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

export function modelCallStart(
  thread: string,
  md: Record<string, unknown>,
  extra: Record<string, unknown> | undefined,
  input: BaseMessage[] | undefined,
  recording = false,
): OpenCall {
  // LangGraph's task namespace: `node:<task id>`, a subgraph's nested as `a:<id>|b:<id>`.
  const ns = typeof md.langgraph_checkpoint_ns === 'string' ? md.langgraph_checkpoint_ns : '';
  const last = ns.split('|').at(-1) ?? '';
  const task = last.includes(':') ? last.slice(last.indexOf(':') + 1) : null;
  const params = (extra?.invocation_params ?? {}) as Record<string, unknown>;
  const provider = String(md.ls_provider ?? 'unknown');
  return {
    thread,
    started: performance.now(),
    startedAt: new Date().toISOString(),
    provider: PROVIDERS[provider] ?? provider,
    requestModel: typeof md.ls_model_name === 'string' ? md.ls_model_name : typeof params.model === 'string' ? params.model : null,
    temperature: num(md.ls_temperature),
    maxTokens: num(md.ls_max_tokens),
    task,
    node: typeof md.langgraph_node === 'string' ? md.langgraph_node : null,
    branch: currentBranch(),
    ...(input ? { input: messageRecords(input) } : {}),
    ...(recording ? { params: plainParams(params) } : {}),
  };
}

export function modelCallEnd(
  call: OpenCall,
  runId: string,
  r: { message?: BaseMessage & { usage_metadata?: UsageMetadata }; output?: LLMResult; error?: unknown; content: boolean },
): ModelCall {
  const meta = (r.message?.response_metadata ?? {}) as Record<string, unknown>;
  const llmOut = (r.output?.llmOutput ?? {}) as Record<string, unknown>;
  const usage = r.message?.usage_metadata;
  const finish = meta.finish_reason ?? meta.stop_reason ?? meta.finishReason;
  const responseModel = meta.model_name ?? meta.model ?? llmOut.model_name ?? llmOut.model;
  return {
    span_id: runId,
    parent_span_id: call.task,
    node: call.node,
    branch_span_id: call.branch?.span_id ?? null,
    branch: call.branch?.node ?? null,
    started_at: call.startedAt,
    duration_ms: Math.round((performance.now() - call.started) * 10) / 10,
    status: r.error === undefined ? 'completed' : 'failed',
    provider: call.provider,
    request_model: call.requestModel,
    response_model: typeof responseModel === 'string' ? responseModel : null,
    temperature: call.temperature,
    max_tokens: call.maxTokens,
    finish_reasons: typeof finish === 'string' ? [finish] : [],
    usage: usage
      ? {
          input_tokens: usage.input_tokens ?? 0,
          output_tokens: usage.output_tokens ?? 0,
          cache_read_tokens: usage.input_token_details?.cache_read ?? 0,
          cache_creation_tokens: usage.input_token_details?.cache_creation ?? 0,
        }
      : null,
    ...(r.error !== undefined ? { error: String((r.error as Error)?.message ?? r.error).slice(0, 500) } : {}),
    ...(call.input ? { input_messages: call.input } : {}),
    ...(call.params ? { params: call.params } : {}),
    ...(r.content && r.message ? { output_messages: [messageRecord(r.message)] } : {}),
  };
}

/** The invocation parameters without functions or class instances (tools become their JSON). */
function plainParams(params: Record<string, unknown>): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(params)) as Record<string, unknown>;
  } catch {
    return {};
  }
}
