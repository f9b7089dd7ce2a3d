// A model built by createChatModel numbers its calls and, in a replayed run, answers them
// from the recording instead of the provider (src/sdk/call-record.ts; D-91). The model's own
// `_generate` / `_streamResponseChunks` are wrapped on the instance, so bindTools and every
// other method keep working; outside a recording or replaying run the wrapper costs one map
// lookup. The call's key goes, by LangChain's run id, to the usage callback (usage.ts),
// which puts it on the `model.call` event: no extra callback handler (docs/performance.md).
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { callSession, nodeOf, currentCallScope, requestHash, withCallScope, type CallKey, type ReplayAnswer } from './call-record.ts';

interface RunManagerLike {
  runId?: string;
  metadata?: Record<string, unknown>;
}

/** What a model call's key was and whether it was answered from the recording, by run id. */
export interface ModelCallNote {
  key: CallKey;
  branch_span_id: string | null;
  replayed: boolean;
  /** The provider's HTTP request, when it went through the runtime's pool (redacted). */
  raw?: { method: string; url: string; headers: Record<string, string>; body: unknown };
}

const NOTES = Symbol.for('agent-studio.model-call-notes');

export function modelCallNotes(): Map<string, ModelCallNote> {
  const g = globalThis as unknown as Record<symbol, Map<string, ModelCallNote> | undefined>;
  return (g[NOTES] ??= new Map());
}

export function messageRecord(m: BaseMessage): { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string } {
  const calls = (m as { tool_calls?: { name: string; args: unknown; id?: string }[] }).tool_calls;
  const toolCallId = (m as { tool_call_id?: string }).tool_call_id;
  return {
    role: m.getType(),
    content: m.content,
    ...(calls?.length ? { tool_calls: calls.map((c) => ({ name: c.name, args: c.args, ...(c.id ? { id: c.id } : {}) })) } : {}),
    ...(toolCallId ? { tool_call_id: toolCallId } : {}),
  };
}

/** The messages of a call as records, made once a call: the usage callback records the
 * call's input before the model's `_generate` keys it, with the same array of messages. */
const records = new WeakMap<BaseMessage[], ReturnType<typeof messageRecord>[]>();
export function messageRecords(messages: BaseMessage[]): ReturnType<typeof messageRecord>[] {
  let out = records.get(messages);
  if (!out) records.set(messages, (out = messages.map(messageRecord)));
  return out;
}

function toolNames(tools: unknown): string[] | null {
  if (!Array.isArray(tools)) return null;
  return tools.map((t: { name?: string; function?: { name?: string } }) => String(t?.name ?? t?.function?.name ?? '?'));
}

/** What a model call's hash covers: the messages, the tools and the tool choice; not the
 * model or its parameters, which come from the environment (a replay on a machine without the
 * provider's key runs the offline model, D-91). */
export function modelRequest(messages: BaseMessage[], options: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    messages: messageRecords(messages),
    tools: toolNames(options?.tools),
    tool_choice: options?.tool_choice ?? null,
  };
}

interface Begun {
  answer: ReplayAnswer | null;
}

function begin(messages: BaseMessage[], options: Record<string, unknown> | undefined, rm: RunManagerLike | undefined): Begun | null {
  const md = rm?.metadata;
  const session = callSession(md?.thread_id);
  if (!session || !rm?.runId) return null;
  const request = modelRequest(messages, options);
  const branch = currentCallScope()?.branch ?? null;
  const key = session.next('model', nodeOf(md), branch?.label ?? null, requestHash(request));
  const answer = session.answer('model', key, request);
  modelCallNotes().set(rm.runId, { key, branch_span_id: branch?.span_id ?? null, replayed: answer !== null });
  return { answer };
}

interface Answer {
  output_messages?: { role: string; content: unknown; tool_calls?: { name: string; args: Record<string, unknown>; id?: string }[] }[];
  usage?: { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_creation_tokens: number } | null;
  response_model?: string | null;
  finish_reasons?: string[];
  error?: string;
}

function fields(a: ReplayAnswer) {
  const r = a as unknown as Answer;
  if (r.error !== undefined) throw new Error(r.error);
  const out = r.output_messages?.[0] ?? { role: 'ai', content: '' };
  const u = r.usage;
  return {
    content: out.content as string,
    tool_calls: (out.tool_calls ?? []).map((c) => ({ name: c.name, args: c.args, id: c.id, type: 'tool_call' as const })),
    ...(u
      ? {
          usage_metadata: {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u.input_tokens + u.output_tokens,
            input_token_details: { cache_read: u.cache_read_tokens, cache_creation: u.cache_creation_tokens },
          },
        }
      : {}),
    response_metadata: { model_name: r.response_model ?? undefined, finish_reason: r.finish_reasons?.[0], replayed: true },
  };
}

function resultOf(a: ReplayAnswer): ChatResult {
  const message = new AIMessage(fields(a));
  return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
}

function chunkOf(a: ReplayAnswer): ChatGenerationChunk {
  const f = fields(a);
  const message = new AIMessageChunk({
    ...f,
    tool_call_chunks: f.tool_calls.map((c, index) => ({ name: c.name, args: JSON.stringify(c.args), id: c.id, index, type: 'tool_call_chunk' as const })),
  });
  return new ChatGenerationChunk({ text: f.content, message });
}

type Generate = (messages: BaseMessage[], options: Record<string, unknown>, rm?: RunManagerLike) => Promise<ChatResult>;
type Stream = (messages: BaseMessage[], options: Record<string, unknown>, rm?: RunManagerLike) => AsyncGenerator<ChatGenerationChunk>;

/** Wraps the model's call methods so its calls are keyed and, in a replay, answered. */
export function replayable<M extends BaseChatModel>(model: M, wrap: { http: boolean } = { http: true }): M {
  const m = model as unknown as { _generate: Generate; _streamResponseChunks: Stream };
  const generate = m._generate.bind(model);
  // Calls keyed by _generate: a model whose _generate streams (the scripted one) is one call.
  const inGenerate = new Set<string>();
  m._generate = async (messages, options, rm) => {
    const call = begin(messages, options, rm);
    if (!call) return generate(messages, options, rm);
    if (call.answer) return resultOf(call.answer);
    inGenerate.add(rm!.runId!);
    try {
      // The provider's HTTP request is attached to this call (outbound recording, D-92).
      return await (wrap.http ? withCallScope({ modelRun: rm!.runId }, () => generate(messages, options, rm)) : generate(messages, options, rm));
    } finally {
      inGenerate.delete(rm!.runId!);
    }
  };
  if (m._streamResponseChunks !== BaseChatModel.prototype._streamResponseChunks) {
    const stream = m._streamResponseChunks.bind(model);
    m._streamResponseChunks = async function* (messages, options, rm) {
      if (rm?.runId && inGenerate.has(rm.runId)) {
        yield* stream(messages, options, rm);
        return;
      }
      const call = begin(messages, options, rm);
      if (call?.answer) {
        yield chunkOf(call.answer);
        return;
      }
      if (!call || !wrap.http) {
        yield* stream(messages, options, rm);
        return;
      }
      // Each step runs in the call's scope: the provider's request is attached to it.
      const inner = stream(messages, options, rm);
      for (;;) {
        const r = await withCallScope({ modelRun: rm!.runId }, () => inner.next());
        if (r.done) return;
        yield r.value;
      }
    };
  }
  return model;
}
