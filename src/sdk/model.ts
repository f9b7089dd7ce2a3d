// The project's chat model: the provider MODEL_PROVIDER names (providers.ts): an
// OpenAI-compatible endpoint (OpenAI, Ollama, vLLM, LM Studio), Anthropic or Gemini;
// without one, OpenAI-compatible when OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL are
// set, otherwise the offline scripted model.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatOpenAI } from '@langchain/openai';
import { ScriptedChatModel, type ScriptedResponder } from './scripted-model.ts';
import { modelUsage } from './usage.ts';
import { replayable } from './replay-model.ts';
import { anthropicModel, callLimits, geminiModel, modelProvider, numberFromEnv, type ModelEnvironment } from './providers.ts';

export type { ModelEnvironment, ModelSettings } from './providers.ts';

export function openAiConfigured(env: Record<string, string>): boolean {
  return Boolean(env.OPENAI_BASE_URL && env.OPENAI_API_KEY && env.OPENAI_MODEL);
}

/** Builds the model MODEL_PROVIDER names (providers.ts): `openai` (any OpenAI-compatible
 * endpoint), `anthropic`, `gemini`, or `scripted`, which answers offline with `scripted`.
 * Unset: `openai` when its three settings are set, else `scripted`. MODEL_TIMEOUT_SECONDS and
 * MODEL_MAX_RETRIES in the environment override the manifest's model settings. */
export function createChatModel(ctx: ModelEnvironment, scripted: ScriptedResponder): BaseChatModel {
  // Its calls are keyed for recording and answered from a recording in a replay (D-91). The
  // offline model makes no HTTP request, so no provider request is attached to its calls.
  const model = buildChatModel(ctx, scripted);
  return replayable(model, { http: !(model instanceof ScriptedChatModel) });
}

function buildChatModel(ctx: ModelEnvironment, scripted: ScriptedResponder): BaseChatModel {
  const { env } = ctx;
  const provider = modelProvider(env);
  if (provider === 'anthropic') return anthropicModel(ctx);
  if (provider === 'gemini') return geminiModel(ctx);
  if (provider !== 'openai') {
    return new ScriptedChatModel(scripted, {
      chunks: numberFromEnv(env, 'SCRIPTED_CHUNKS') ?? 6,
      delayMs: numberFromEnv(env, 'SCRIPTED_DELAY_MS') ?? 20,
      callbacks: [modelUsage()],
    });
  }
  // streaming stays off: a streamed run (message/stream) still streams token by token,
  // because LangGraph's `messages` mode asks for it, while a plain invoke (message/send) is
  // one completion whose usage (cached tokens included) comes from the server. With
  // `streaming: true` a plain invoke would stream and then estimate usage with tiktoken,
  // which downloads its encoder from the network.
  return new ChatOpenAI({ ...openAiClientOptions(ctx), streamUsage: true, callbacks: [modelUsage()] });
}

/** The client settings every OpenAI-compatible call shares (the graph's model and the
 * runtime's summariser): endpoint, key, model, temperature, timeout and retries. */
export function openAiClientOptions(ctx: ModelEnvironment) {
  const { env } = ctx;
  const { timeoutMs, maxRetries } = callLimits(ctx);
  return {
    model: env.OPENAI_MODEL,
    apiKey: env.OPENAI_API_KEY,
    configuration: { baseURL: env.OPENAI_BASE_URL, ...(ctx.fetch ? { fetch: ctx.fetch } : {}) },
    temperature: ctx.model.temperature ?? 0,
    maxTokens: ctx.model.maxTokens,
    timeout: timeoutMs,
    maxRetries,
  };
}
