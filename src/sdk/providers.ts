// The model providers createChatModel can build (docs/project-format.md, "The model"): an
// OpenAI-compatible endpoint, Anthropic (Messages API) and Google Gemini, each through
// LangChain's own package, chosen by MODEL_PROVIDER. Keys come from the environment and go
// to the client only: nothing here logs or stores them.
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { ChatAnthropic } from '@langchain/anthropic';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
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

export type ModelProvider = 'openai' | 'anthropic' | 'gemini' | 'scripted';
export const MODEL_PROVIDERS: ModelProvider[] = ['openai', 'anthropic', 'gemini', 'scripted'];

/** What each provider needs set; the base URL is optional for Anthropic and Gemini. */
export const PROVIDER_SETTINGS = {
  openai: { key: 'OPENAI_API_KEY', model: 'OPENAI_MODEL', baseUrl: 'OPENAI_BASE_URL' },
  anthropic: { key: 'ANTHROPIC_API_KEY', model: 'ANTHROPIC_MODEL', baseUrl: 'ANTHROPIC_BASE_URL' },
  gemini: { key: 'GOOGLE_API_KEY', model: 'GEMINI_MODEL', baseUrl: 'GEMINI_BASE_URL' },
} as const;

/** MODEL_PROVIDER when set; otherwise `openai` when OPENAI_BASE_URL, OPENAI_API_KEY and
 * OPENAI_MODEL are all set (as before providers existed), else the offline `scripted` model. */
export function modelProvider(env: Record<string, string>): ModelProvider {
  const named = env.MODEL_PROVIDER?.trim().toLowerCase();
  if (named) return named as ModelProvider;
  return env.OPENAI_BASE_URL && env.OPENAI_API_KEY && env.OPENAI_MODEL ? 'openai' : 'scripted';
}

function numberFromEnv(env: Record<string, string>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** Timeout (ms) and retries shared by every provider: MODEL_TIMEOUT_SECONDS and
 * MODEL_MAX_RETRIES override the manifest's model settings (30 s, 1 retry). */
export function callLimits(ctx: ModelEnvironment): { timeoutMs: number; maxRetries: number } {
  const timeoutSeconds = numberFromEnv(ctx.env, 'MODEL_TIMEOUT_SECONDS') ?? ctx.model.timeoutSeconds ?? 30;
  return { timeoutMs: timeoutSeconds * 1000, maxRetries: numberFromEnv(ctx.env, 'MODEL_MAX_RETRIES') ?? ctx.model.maxRetries ?? 1 };
}

export { numberFromEnv };

/** Anthropic's Messages API, through the runtime's pooled fetch when there is one. */
export function anthropicModel(ctx: ModelEnvironment): BaseChatModel {
  const { env } = ctx;
  const { timeoutMs, maxRetries } = callLimits(ctx);
  return new ChatAnthropic({
    model: env.ANTHROPIC_MODEL,
    apiKey: env.ANTHROPIC_API_KEY,
    ...(env.ANTHROPIC_BASE_URL ? { anthropicApiUrl: env.ANTHROPIC_BASE_URL } : {}),
    temperature: ctx.model.temperature ?? 0,
    // The Messages API requires max_tokens.
    maxTokens: ctx.model.maxTokens ?? 4096,
    maxRetries,
    streamUsage: true,
    clientOptions: { timeout: timeoutMs, ...(ctx.fetch ? { fetch: ctx.fetch as typeof fetch } : {}) },
    callbacks: [modelUsage()],
  });
}

/** Gemini's generateContent / streamGenerateContent. Google's client calls the global fetch
 * (it takes no custom one), so these calls do not go through the outbound pool; the timeout is
 * set on the client's request options. */
export function geminiModel(ctx: ModelEnvironment): BaseChatModel {
  const { env } = ctx;
  const { timeoutMs, maxRetries } = callLimits(ctx);
  const model = new ChatGoogleGenerativeAI({
    model: env.GEMINI_MODEL!,
    apiKey: env.GOOGLE_API_KEY,
    ...(env.GEMINI_BASE_URL ? { baseUrl: env.GEMINI_BASE_URL } : {}),
    temperature: ctx.model.temperature ?? 0,
    ...(ctx.model.maxTokens ? { maxOutputTokens: ctx.model.maxTokens } : {}),
    maxRetries,
    streamUsage: true,
    callbacks: [modelUsage()],
  });
  const client = (model as unknown as { client?: { _requestOptions?: Record<string, unknown> } }).client;
  if (client) client._requestOptions = { ...client._requestOptions, timeout: timeoutMs };
  return model;
}
