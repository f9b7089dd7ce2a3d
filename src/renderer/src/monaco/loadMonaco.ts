// Lazy access to Monaco. A failure to load (old engine, blocked worker) is reported once and
// the JSON editor falls back to a plain textarea.
import type * as Monaco from 'monaco-editor';

export interface MonacoModule {
  monaco: typeof Monaco;
  jsonDefaults: Monaco.json.LanguageServiceDefaults;
}

let pending: Promise<MonacoModule> | null = null;

export function loadMonaco(): Promise<MonacoModule> {
  pending ??= import('./setup.ts').then((m) => ({ monaco: m.monaco as unknown as typeof Monaco, jsonDefaults: m.jsonDefaults }));
  // Vite reports a failed import of a lazy chunk once; a retry later may succeed.
  pending.catch(() => (pending = null));
  return pending;
}

/** Follows the OS colour scheme, like the rest of the studio. */
export function monacoTheme(): 'vs' | 'vs-dark' {
  return window.matchMedia?.('(prefers-color-scheme: dark)').matches ? 'vs-dark' : 'vs';
}
