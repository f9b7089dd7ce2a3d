// The project's chat model: an OpenAI-compatible endpoint when OPENAI_BASE_URL,
// OPENAI_API_KEY and OPENAI_MODEL are set (OpenAI, Ollama, vLLM, LM Studio), otherwise the
// offline scripted model.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatOpenAI } from '@langchain/openai';
import { ScriptedChatModel, type ScriptedResponder } from './scripted-model.ts';
import { modelUsage } from './usage.ts';

export interface ModelSettings {
  temperature?: number;
  /** Per request; an answer that never comes fails as UPSTREAM_TIMEOUT after this. */
  timeoutSeconds?: number;
  /** Retries of a failed call. Kept low so a failing upstream ends within seconds. */
  maxRetries?: number;
  maxTokens?: number;
}

export interface ModelEnvironment {
  env: Record<string, string>;
  model: ModelSettings;
  /** The runtime's pooled fetch (AgentContext.fetch), when there is one. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

export function openAiConfigured(env: Record<string, string>): boolean {
  return Boolean(env.OPENAI_BASE_URL && env.OPENAI_API_KEY && env.OPENAI_MODEL);
}

function numberFromEnv(env: Record<string, string>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Builds the model; `scripted` answers offline. MODEL_TIMEOUT_SECONDS and MODEL_MAX_RETRIES
 * in the environment override the manifest's model settings. */
export function createChatModel(ctx: ModelEnvironment, scripted: ScriptedResponder): BaseChatModel {
  const { env } = ctx;
  if (!openAiConfigured(env)) {
    return new ScriptedChatModel(scripted, {
      chunks: numberFromEnv(env, 'SCRIPTED_CHUNKS') ?? 6,
      delayMs: numberFromEnv(env, 'SCRIPTED_DELAY_MS') ?? 20,
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
  const timeoutSeconds = numberFromEnv(env, 'MODEL_TIMEOUT_SECONDS') ?? ctx.model.timeoutSeconds ?? 30;
  const maxRetries = numberFromEnv(env, 'MODEL_MAX_RETRIES') ?? ctx.model.maxRetries ?? 1;
  return {
    model: env.OPENAI_MODEL,
    apiKey: env.OPENAI_API_KEY,
    configuration: { baseURL: env.OPENAI_BASE_URL, ...(ctx.fetch ? { fetch: ctx.fetch } : {}) },
    temperature: ctx.model.temperature ?? 0,
    maxTokens: ctx.model.maxTokens,
    timeout: timeoutSeconds * 1000,
    maxRetries,
  };
}
