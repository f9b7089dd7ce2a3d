// A setting the runtime cannot start with: one line naming the setting and what it expects
// (docs/deployment.md). Its own module so every settings reader (config.ts, auth/settings.ts)
// can throw it without importing the others.
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}
