// Completion in the composer's JSON editors from lib/json-suggest.ts: contract properties and
// ranked values (earlier runs, default, enum, examples, skill examples). It replaces the JSON
// worker's own schema completion, which knows neither the project's history nor the card.
import type * as Monaco from 'monaco-editor';
import type { MonacoModule } from './loadMonaco.ts';
import { completionsAt, type SuggestContext } from '../lib/json-suggest.ts';

/** model uri → what to suggest in it. */
const contexts = new Map<string, SuggestContext>();
let installed = false;

export function setSuggestContext(modelUri: string, ctx: SuggestContext | undefined): void {
  if (ctx) contexts.set(modelUri, ctx);
  else contexts.delete(modelUri);
}

export function installJsonCompletion({ monaco, jsonDefaults }: MonacoModule): void {
  if (installed) return;
  installed = true;
  jsonDefaults.setModeConfiguration({ ...jsonDefaults.modeConfiguration, completionItems: false });
  monaco.languages.registerCompletionItemProvider('json', {
    // As VS Code's JSON: a quote or a colon opens the list; Ctrl+Space anywhere. Not a comma,
    // or Enter after it would pick a suggestion instead of starting a line.
    triggerCharacters: ['"', ':'],
    provideCompletionItems(model: Monaco.editor.ITextModel, position: Monaco.Position) {
      const ctx = contexts.get(model.uri.toString(true));
      if (!ctx) return { suggestions: [] };
      const result = completionsAt(model.getValue(), model.getOffsetAt(position), ctx);
      if (!result) return { suggestions: [] };
      const from = model.getPositionAt(result.start);
      const to = model.getPositionAt(result.end);
      const range = new monaco.Range(from.lineNumber, from.column, to.lineNumber, to.column);
      const suggestions = result.items.map((item, i): Monaco.languages.CompletionItem => ({
        label: { label: item.label, description: item.detail },
        kind: item.kind === 'property' ? monaco.languages.CompletionItemKind.Property : monaco.languages.CompletionItemKind.Value,
        insertText: item.insertText,
        insertTextRules: item.snippet ? monaco.languages.CompletionItemInsertTextRule.InsertAsSnippet : undefined,
        // Filtering compares the typed text (quotes included) with the suggestion's JSON.
        filterText: item.kind === 'property' ? JSON.stringify(item.label) : item.insertText,
        sortText: String(i).padStart(4, '0'),
        detail: item.detail,
        documentation: item.documentation,
        range,
        command: item.retrigger ? { id: 'editor.action.triggerSuggest', title: 'Suggest values' } : undefined,
      }));
      return { suggestions };
    },
  });
}
