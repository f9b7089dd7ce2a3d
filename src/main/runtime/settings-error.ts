// A setting the runtime cannot start with: one line naming the setting (docs/deployment.md).
// Its own module so that settings parsers in other folders (cluster/nats-settings.ts) and
// config.ts, which calls them, both use it without importing each other.
export class SettingsError extends Error {
  override readonly name = 'SettingsError';
}
