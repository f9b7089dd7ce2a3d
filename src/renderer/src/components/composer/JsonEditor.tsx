// A JSON editor on Monaco, validated against the part's input contract when the studio
// knows its JSON Schema. Falls back to a plain textarea if Monaco cannot load.
import { useEffect, useRef, useState } from 'react';
import type * as Monaco from 'monaco-editor';
import { loadMonaco, monacoTheme, type MonacoModule } from '../../monaco/loadMonaco.ts';
import { installJsonCompletion, setSuggestContext } from '../../monaco/jsonCompletion.ts';
import type { FieldHistory } from '../../../../shared/suggestions.ts';

/** A problem Monaco marks in the text: its line and message. */
export interface EditorProblem {
  line: number;
  message: string;
}

/** model uri → JSON Schema, for every JSON editor on screen (Monaco keeps one global list). */
const schemaByModel = new Map<string, { uri: string; schema: Record<string, unknown> }>();

function publishSchemas(m: MonacoModule): void {
  m.jsonDefaults.setDiagnosticsOptions({
    validate: true,
    allowComments: false,
    enableSchemaRequest: false,
    schemas: [...schemaByModel.entries()].map(([model, s]) => ({ uri: s.uri, fileMatch: [model], schema: s.schema })),
  });
}

const HEIGHT_KEY = 'agent-studio.data-editor-height';

/** The height the author last dragged the editor to (CSS caps it at a third of the window). */
function initialHeight(): number {
  const stored = Number(localStorage.getItem(HEIGHT_KEY));
  return Number.isFinite(stored) && stored >= 100 ? stored : 180;
}

function useRememberedHeight(frame: React.RefObject<HTMLDivElement | null>): void {
  useEffect(() => {
    const el = frame.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => {
      const h = Math.round(el.getBoundingClientRect().height);
      if (h >= 100) localStorage.setItem(HEIGHT_KEY, String(h));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [frame]);
}

export function JsonEditor({
  modelId,
  value,
  onChange,
  onSubmit,
  schema,
  schemaId,
  label,
  testId,
  history,
  skillExamples,
  onProblems,
}: {
  modelId: string;
  value: string;
  onChange: (v: string) => void;
  onSubmit?: () => void;
  schema?: Record<string, unknown>;
  schemaId?: string;
  label: string;
  testId?: string;
  /** For completion: the field values of earlier successful runs, the card's skill examples. */
  history?: FieldHistory[];
  skillExamples?: string[];
  /** Monaco's problems of the text (JSON syntax, the schema), as they change; never called in
   * the textarea fallback. */
  onProblems?: (problems: EditorProblem[]) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const [startHeight] = useState(initialHeight);
  useRememberedHeight(frame);
  const editorRef = useRef<Monaco.editor.IStandaloneCodeEditor | null>(null);
  const [mode, setMode] = useState<'loading' | 'monaco' | 'textarea'>('loading');
  const onChangeRef = useRef(onChange);
  const onSubmitRef = useRef(onSubmit);
  const onProblemsRef = useRef(onProblems);
  onProblemsRef.current = onProblems;
  const valueRef = useRef(value);
  onChangeRef.current = onChange;
  onSubmitRef.current = onSubmit;
  valueRef.current = value;

  useEffect(() => {
    let disposed = false;
    let cleanup = () => {};
    loadMonaco()
      .then((m) => {
        if (disposed || !host.current) return;
        const { monaco } = m;
        installJsonCompletion(m);
        const uri = monaco.Uri.parse(`inmemory://composer/${modelId}.json`);
        const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(valueRef.current, 'json', uri);
        const editor = monaco.editor.create(host.current, {
          model,
          theme: monacoTheme(),
          ariaLabel: label,
          automaticLayout: true,
          minimap: { enabled: false },
          fontSize: 13,
          lineNumbers: 'on',
          lineNumbersMinChars: 3,
          folding: true,
          scrollBeyondLastLine: false,
          wordWrap: 'on',
          tabSize: 2,
          renderLineHighlight: 'none',
          overviewRulerLanes: 0,
          fixedOverflowWidgets: true,
          scrollbar: { alwaysConsumeMouseWheel: false },
        });
        editorRef.current = editor;
        const sub = model.onDidChangeContent(() => onChangeRef.current(model.getValue()));
        const report = () =>
          onProblemsRef.current?.(
            monaco.editor
              .getModelMarkers({ resource: uri })
              .filter((m) => m.severity >= monaco.MarkerSeverity.Warning)
              .map((m) => ({ line: m.startLineNumber, message: m.message })),
          );
        const markers = monaco.editor.onDidChangeMarkers((uris) => {
          if (uris.some((u) => u.toString() === uri.toString())) report();
        });
        // Ctrl/Cmd+Enter sends from inside the editor too.
        editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter, () => onSubmitRef.current?.());
        const media = window.matchMedia?.('(prefers-color-scheme: dark)');
        const onScheme = () => monaco.editor.setTheme(monacoTheme());
        media?.addEventListener('change', onScheme);
        setMode('monaco');
        cleanup = () => {
          media?.removeEventListener('change', onScheme);
          sub.dispose();
          markers.dispose();
          editor.dispose();
          model.dispose();
          editorRef.current = null;
        };
      })
      .catch((err) => {
        console.warn('Monaco could not load; using a plain text area.', err);
        if (!disposed) setMode('textarea');
      });
    return () => {
      disposed = true;
      cleanup();
    };
  }, [modelId, label]);

  // Outside changes (a reset, a contract inserted) reach the model.
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model && model.getValue() !== value) model.setValue(value);
  }, [value, mode]);

  // Validation against the contract's JSON Schema.
  useEffect(() => {
    const key = `inmemory://composer/${modelId}.json`;
    if (schema) schemaByModel.set(key, { uri: `inmemory://schemas/${encodeURIComponent(schemaId ?? modelId)}`, schema });
    else schemaByModel.delete(key);
    void loadMonaco()
      .then(publishSchemas)
      .catch(() => undefined);
    return () => {
      schemaByModel.delete(key);
    };
  }, [modelId, schema, schemaId]);

  // Completion: contract properties and ranked values (lib/json-suggest.ts).
  useEffect(() => {
    const key = `inmemory://composer/${modelId}.json`;
    setSuggestContext(key, schema ? { schema, history, skillExamples } : undefined);
    return () => setSuggestContext(key, undefined);
  }, [modelId, schema, history, skillExamples]);

  if (mode === 'textarea') {
    return (
      <textarea
        className="json-fallback"
        aria-label={label}
        value={value}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          if ((e.ctrlKey || e.metaKey) && e.key === 'Enter') {
            e.preventDefault();
            onSubmit?.();
          }
        }}
        data-testid={testId}
        data-editor="textarea"
      />
    );
  }
  return (
    <div ref={frame} className="json-editor" data-testid={testId} data-editor={mode} style={{ height: startHeight }}>
      <div ref={host} className="json-editor__host" />
      {mode === 'loading' ? <div className="json-editor__loading">Loading editor…</div> : null}
    </div>
  );
}
