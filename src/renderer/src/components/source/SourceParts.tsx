// The source view's parts that only show what they are given: the project's file tree, a
// node's source targets, the tab bar of open files and the toolbar (SourceView.tsx owns the
// editor).
import type * as Monaco from 'monaco-editor';
import type { ProjectDiagnostic, SourceTarget } from '../../api/project.ts';
import { CopyButton } from '../CopyButton.tsx';

export function languageOf(path: string): string {
  if (/\.(ts|tsx|mts|cts)$/.test(path)) return 'typescript';
  if (/\.(js|mjs|cjs|jsx)$/.test(path)) return 'javascript';
  if (path.endsWith('.json')) return 'json';
  if (path.endsWith('.md')) return 'markdown';
  return 'plaintext';
}

export interface OpenFile {
  /** Tab key: the path, or `path@run` for a file as it was at a run (read-only). */
  key: string;
  path: string;
  runId?: string;
  /** Content and hash as last loaded from or saved to disk. */
  saved: string;
  sha256: string;
  model: Monaco.editor.ITextModel;
  /** A save is under way: the disk may already hold it before the answer arrives. */
  saving?: boolean;
}

/** The project's diagnostics as error markers in the open files they name. */
export function showDiagnostics(monaco: typeof Monaco, files: OpenFile[], diagnostics: ProjectDiagnostic[]): void {
  for (const f of files) {
    const mine = diagnostics.filter((d) => d.file === f.path);
    monaco.editor.setModelMarkers(
      f.model,
      'project',
      mine.map((d) => ({
        severity: monaco.MarkerSeverity.Error,
        message: d.message,
        startLineNumber: d.line ?? 1,
        startColumn: d.column ?? 1,
        endLineNumber: d.line ?? 1,
        endColumn: (d.column ?? 1) + 1,
      })),
    );
  }
}

const KIND_LABEL: Record<SourceTarget['kind'], string> = {
  add_node: 'added to the graph',
  function: 'function',
  factory: 'factory',
  subgraph: 'subgraph',
  branch: 'fan-out branch',
  route_from: 'routes from it',
  route_to: 'routes to it',
  evaluator: 'evaluator (agent.json)',
  evaluator_function: 'evaluator function',
};

export function FileTree({ name, files, active, onOpen }: { name: string; files: string[]; active: string | null; onOpen: (path: string) => void }) {
  return (
    <nav className="source__tree" aria-label="Project files">
      <h2 className="subhead">{name}</h2>
      <ul>
        {files.map((f) => (
          <li key={f}>
            <button
              type="button"
              className={`source__file${f === active ? ' is-active' : ''}`}
              onClick={() => onOpen(f)}
              data-testid="source-file"
              data-path={f}
            >
              {f}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Where a graph node lives in the source, one chip per target; the analysis's error instead. */
export function NodeTargets({
  node,
  targets,
  error,
  onOpen,
}: {
  node: string;
  targets: SourceTarget[] | undefined;
  error: string | null;
  onOpen: (target: SourceTarget) => void;
}) {
  return (
    <>
      {targets ? (
        <div className="source__targets" data-testid="source-targets">
          <span className="muted">
            Node <code>{node}</code>:
          </span>
          {targets.map((t) => (
            <button
              key={`${t.kind}:${t.path}:${t.line}`}
              type="button"
              className="chip"
              title={t.snippet}
              onClick={() => onOpen(t)}
              data-testid="source-target"
              data-kind={t.kind}
            >
              {KIND_LABEL[t.kind]} · {t.path}:{t.line}
            </button>
          ))}
        </div>
      ) : null}
      {error ? <p className="field-error">{error}</p> : null}
    </>
  );
}

/** The open files, each with its dirty marker and a close button. */
export function TabBar({
  tabs,
  active,
  dirty,
  fileOf,
  onOpen,
  onClose,
}: {
  tabs: string[];
  active: string | null;
  dirty: Set<string>;
  fileOf: (tab: string) => OpenFile | undefined;
  onOpen: (tab: string) => void;
  onClose: (tab: string) => void;
}) {
  return (
    <div className="source__tabs" role="tablist" aria-label="Open files">
      {tabs.map((t) => {
        const file = fileOf(t);
        return (
          <span
            key={t}
            className={`source__tab${t === active ? ' is-active' : ''}`}
            data-testid="source-tab"
            data-path={t}
            data-dirty={dirty.has(t) ? 'true' : undefined}
          >
            <button type="button" role="tab" aria-selected={t === active} onClick={() => onOpen(t)}>
              {file?.path.split('/').pop() ?? t}
              {file?.runId ? <span className="muted"> @ run …{file.runId.slice(-6)}</span> : null}
              {dirty.has(t) ? (
                <span className="source__dirty" aria-label="unsaved changes">
                  {' '}
                  ●
                </span>
              ) : null}
            </button>
            <button type="button" className="source__close" aria-label={`Close ${t}`} onClick={() => onClose(t)}>
              ×
            </button>
          </span>
        );
      })}
    </div>
  );
}

/** Where the cursor is, and Save for a file of the project. A file as it was at a run is
 * read-only: it says so, and offers no save (no button, no shortcut hint). */
export function SourceToolbar({
  where,
  runId,
  onOpenInEditor,
  canSave,
  saving,
  onSave,
}: {
  where: string | null;
  runId: string | undefined;
  onOpenInEditor: (() => void) | undefined;
  canSave: boolean;
  saving: boolean;
  onSave: () => void;
}) {
  return (
    <div className="source__toolbar">
      {where ? (
        <>
          <code data-testid="source-location">{where}</code>
          <CopyButton value={where} label="Copy path:line" />
          {runId ? (
            <span className="chip" data-testid="source-at-run">
              as it was at run {runId.slice(-8)} (read-only)
            </span>
          ) : (
            <>
              {onOpenInEditor ? (
                <button type="button" className="btn btn--small" onClick={onOpenInEditor}>
                  Open in your editor
                </button>
              ) : null}
              <button type="button" className="btn btn--small btn--primary" disabled={!canSave} onClick={onSave} data-testid="source-save">
                {saving ? 'Saving…' : 'Save'}
              </button>
              <span className="muted small" data-testid="source-save-hint">
                Ctrl/Cmd+S saves; the studio reloads the agent on its own.
              </span>
            </>
          )}
        </>
      ) : (
        <span className="muted">Open a file from the list, or use “Go to source” on a graph node or a span.</span>
      )}
    </div>
  );
}
