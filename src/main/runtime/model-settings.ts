// The model provider setting (MODEL_PROVIDER; docs/project-format.md, "The model"), checked
// at start so that a missing key or model stops the runtime with one line, not the first
// request. The project's createChatModel reads the same environment (src/sdk/providers.ts).
import { MODEL_PROVIDERS, PROVIDER_SETTINGS, modelProvider, type ModelProvider } from '../../sdk/providers.ts';
import { SettingsError } from './settings-error.ts';

export interface ModelProviderSettings {
  provider: ModelProvider;
  model: string | null;
  /** The endpoint when one is set (shown in the status; never the key). */
  baseUrl: string | null;
}

export function modelProviderSettings(env: Record<string, string>): ModelProviderSettings {
  const provider = modelProvider(env);
  if (!MODEL_PROVIDERS.includes(provider)) throw new SettingsError(`MODEL_PROVIDER must be one of ${MODEL_PROVIDERS.join(', ')}, got '${env.MODEL_PROVIDER}'`);
  if (provider === 'scripted') return { provider, model: null, baseUrl: null };
  const names = PROVIDER_SETTINGS[provider];
  const required: string[] = provider === 'openai' ? [names.baseUrl, names.key, names.model] : [names.key, names.model];
  const missing = required.filter((n) => !env[n]?.trim());
  if (missing.length) throw new SettingsError(`MODEL_PROVIDER=${provider} needs ${missing.join(' and ')} set`);
  const baseUrl = env[names.baseUrl]?.trim() || null;
  if (baseUrl && !/^https?:\/\/[^\s]+$/i.test(baseUrl)) throw new SettingsError(`${names.baseUrl} must be an http(s) URL, got '${baseUrl}'`);
  return { provider, model: env[names.model]!.trim(), baseUrl };
}
