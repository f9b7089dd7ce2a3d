// The playground's call to the project's configured model (src/shared/call-playground.ts;
// docs/playground-api.md, "Playground for one call"; D-100): the chat model createChatModel
// would build from the runtime's environment (MODEL_PROVIDER and its keys, src/sdk/providers.ts)
// and the manifest's model settings, with the call's own parameters on top, sent through the
// runtime's outbound pool. The offline scripted model answers only through the project's own
// responder, inside a run, so without a configured provider the call is refused
// (MODEL_NOT_CONFIGURED) rather than answered by a model the author did not choose.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage, type MessageContent } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { anthropicModel, geminiModel, modelProvider, PROVIDER_SETTINGS, type ModelEnvironment, type ModelSettings } from '../../../sdk/providers.ts';
import { openAiClientOptions } from '../../../sdk/model.ts';
import { messageRecord } from '../../../sdk/replay-model.ts';
import type { RecordedMessage } from '../../../shared/recordings.ts';
import type { ModelCallRequest, ModelCallResult } from '../../../shared/call-playground.ts';
import { ManagementError } from '../management/envelope.ts';

export interface ModelCallDeps {
  env: Record<string, string>;
  /** The loaded project's manifest `model` settings. */
  model: () => ModelSettings;
  /** The runtime's outbound pool (spec 8). */
  fetch: NonNullable<ModelEnvironment['fetch']>;
}

function text(content: unknown): MessageContent {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content as MessageContent;
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** A recorded message (messageRecord's shape: LangChain's type, or an OpenAI role) as a LangChain message. */
export function toMessage(m: RecordedMessage, i: number): BaseMessage {
  const content = text(m.content);
  switch (m.role) {
    case 'system':
      return new SystemMessage({ content });
    case 'human':
    case 'user':
      return new HumanMessage({ content });
    case 'ai':
    case 'assistant': {
      const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as { name: string; args?: Record<string, unknown>; id?: string }[]) : [];
      return new AIMessage({ content, tool_calls: calls.map((c) => ({ name: String(c.name), args: c.args ?? {}, id: c.id, type: 'tool_call' as const })) });
    }
    case 'tool':
      if (!m.tool_call_id) throw new ManagementError('INVALID_BODY', `messages[${i}]: a tool message needs tool_call_id`);
      return new ToolMessage({ content, tool_call_id: m.tool_call_id });
    default:
      throw new ManagementError('INVALID_BODY', `messages[${i}]: role must be system, human, ai or tool (or user, assistant), got '${m.role}'`);
  }
}

function build(deps: ModelCallDeps, req: ModelCallRequest): { provider: string; chat: BaseChatModel } {
  const provider = modelProvider(deps.env);
  if (provider === 'scripted') {
    throw new ManagementError(
      'MODEL_NOT_CONFIGURED',
      'No model is configured: the runtime answers with the offline scripted model, which only answers inside a run. Set MODEL_PROVIDER and its key and model (docs/project-format.md, "The model") to send calls from the playground.',
    );
  }
  if (!(provider in PROVIDER_SETTINGS)) throw new ManagementError('MODEL_NOT_CONFIGURED', `MODEL_PROVIDER '${provider}' is not a provider the runtime knows`);
  const p = req.params;
  const env = p.model ? { ...deps.env, [PROVIDER_SETTINGS[provider as keyof typeof PROVIDER_SETTINGS].model]: p.model } : deps.env;
  const model: ModelSettings = {
    ...deps.model(),
    ...(p.temperature !== undefined ? { temperature: p.temperature } : {}),
    ...(p.max_tokens !== undefined ? { maxTokens: p.max_tokens } : {}),
  };
  const ctx: ModelEnvironment = { env, model, fetch: deps.fetch };
  if (provider === 'anthropic') return { provider, chat: anthropicModel(ctx) };
  if (provider === 'gemini') return { provider, chat: geminiModel(ctx) };
  return { provider, chat: new ChatOpenAI({ ...openAiClientOptions(ctx), streamUsage: true }) };
}

/** Sends one edited call; a provider's failure is the answer's `error`, not a failed request. */
export async function invokeModelCall(deps: ModelCallDeps, req: ModelCallRequest): Promise<ModelCallResult> {
  const messages = req.messages.map(toMessage);
  const { provider, chat } = build(deps, req);
  const tools = req.params.tools;
  const runnable = tools?.length && chat.bindTools ? chat.bindTools(tools) : chat;
  const started = performance.now();
  try {
    const ai = (await runnable.invoke(messages)) as AIMessage;
    const u = ai.usage_metadata;
    const meta = (ai.response_metadata ?? {}) as Record<string, unknown>;
    const finish = meta.finish_reason ?? meta.stop_reason ?? meta.finishReason;
    return {
      provider,
      output_messages: [messageRecord(ai)],
      usage: u
        ? {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_read_tokens: u.input_token_details?.cache_read ?? 0,
            cache_creation_tokens: u.input_token_details?.cache_creation ?? 0,
          }
        : null,
      response_model: typeof meta.model_name === 'string' ? meta.model_name : typeof meta.model === 'string' ? meta.model : null,
      finish_reasons: typeof finish === 'string' ? [finish] : [],
      duration_ms: Math.round(performance.now() - started),
      error: null,
    };
  } catch (err) {
    return {
      provider,
      output_messages: [],
      usage: null,
      response_model: null,
      finish_reasons: [],
      duration_ms: Math.round(performance.now() - started),
      error: (err as Error).message,
    };
  }
}
