// Monaco through its ESM API, with only what the studio needs: the editor core and the
// JSON language. Vite bundles each worker as its own file (`?worker`), so the CSP needs
// worker-src 'self' and never blob:. Loaded lazily: the first screen does not wait for it.
import type * as MonacoTypes from 'monaco-editor';
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api.js';
import * as jsonContribution from 'monaco-editor/esm/vs/language/json/monaco.contribution.js';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker.js?worker';
import JsonWorker from 'monaco-editor/esm/vs/language/json/json.worker.js?worker';

self.MonacoEnvironment = {
  getWorker(_moduleId: string, label: string) {
    return label === 'json' ? new JsonWorker() : new EditorWorker();
  },
};

// The contribution's own .d.ts is empty; its types are the `json` namespace of monaco-editor.
export const jsonDefaults = (jsonContribution as unknown as { jsonDefaults: MonacoTypes.json.LanguageServiceDefaults }).jsonDefaults;

export { monaco };
