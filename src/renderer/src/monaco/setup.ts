// Monaco through its ESM API, with only what the studio needs: the editor core, the JSON
// language (composer data parts) and TypeScript/JavaScript plus Markdown for the source view.
// Vite bundles each worker as its own file (`?worker`), so the CSP needs worker-src 'self'
// and never blob:. Loaded lazily: the first screen does not wait for it.
import type * as MonacoTypes from 'monaco-editor';
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api.js';
import * as jsonContribution from 'monaco-editor/esm/vs/language/json/monaco.contribution.js';
import * as tsContribution from 'monaco-editor/esm/vs/language/typescript/monaco.contribution.js';
import 'monaco-editor/esm/vs/basic-languages/typescript/typescript.contribution.js';
import 'monaco-editor/esm/vs/basic-languages/javascript/javascript.contribution.js';
import 'monaco-editor/esm/vs/basic-languages/markdown/markdown.contribution.js';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker.js?worker';
import JsonWorker from 'monaco-editor/esm/vs/language/json/json.worker.js?worker';
import TsWorker from 'monaco-editor/esm/vs/language/typescript/ts.worker.js?worker';

self.MonacoEnvironment = {
  getWorker(_moduleId: string, label: string) {
    if (label === 'json') return new JsonWorker();
    if (label === 'typescript' || label === 'javascript') return new TsWorker();
    return new EditorWorker();
  },
};

// The contributions' own .d.ts are empty; their types are namespaces of monaco-editor.
export const jsonDefaults = (jsonContribution as unknown as { jsonDefaults: MonacoTypes.json.LanguageServiceDefaults }).jsonDefaults;
/** The part of the TypeScript defaults the studio sets (the package ships no types for it). */
interface TsDefaults {
  setDiagnosticsOptions(options: { noSemanticValidation: boolean; noSyntaxValidation: boolean }): void;
  setCompilerOptions(options: Record<string, unknown>): void;
}
const ts = (tsContribution as unknown as { typescriptDefaults: TsDefaults }).typescriptDefaults;

// The source view shows one file at a time without the project's dependencies, so only
// syntax errors are real; "cannot find module" noise from semantic checks is left out.
ts.setDiagnosticsOptions({ noSemanticValidation: true, noSyntaxValidation: false });
ts.setCompilerOptions({ allowJs: true, allowImportingTsExtensions: true, noEmit: true, target: 99, module: 99 });

export { monaco };
