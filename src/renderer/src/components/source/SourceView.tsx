// The source view: the project's files (tree and tabs) in Monaco, opened at a target (a
// graph node's function, a span's failing line, a diagnostic) with the lines highlighted.
// Edit and save (Ctrl/Cmd+S) through /api/save: a dirty marker per tab, and a conflict
// warning when the file changed on disk since it was opened. The project's diagnostics and
// TypeScript syntax errors show inline. The editor stays where the author was (cursor,
// selection, scroll per tab, viewState.ts) through a save, a project reload and a page reload.
import { useEffect, useRef, useState } from 'react';
import { flushSync } from 'react-dom';
import type * as Monaco from 'monaco-editor';
import { ApiError, errorMessage } from '../../api/client.ts';
import { fetchProjectFile, primaryTarget, useProject, useSaveFile, useSourceTargets, type ProjectDiagnostic } from '../../api/project.ts';
import { desktopBridge } from '../../lib/bridge.ts';
import { loadMonaco, monacoTheme } from '../../monaco/loadMonaco.ts';
import { useUi } from '../../state/ui.ts';
import { FileTree, languageOf, NodeTargets, showDiagnostics, SourceToolbar, TabBar, type OpenFile } from './SourceParts.tsx';
import { loadSourceSession, saveSourceSession, shownTargets, tabKey } from './viewState.ts';
import { useBreakpointGutter } from './breakpointGutter.ts';

export function SourceView() {
  const target = useUi((s) => s.sourceTarget);
  const project = useProject();
  const save = useSaveFile();
  const nodeTargets = useSourceTargets(target?.node && !target.file ? target.node : null);
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<Monaco.editor.IStandaloneCodeEditor | null>(null);
  const monacoRef = useRef<typeof Monaco | null>(null);
  const files = useRef(new Map<string, OpenFile>());
  const decorations = useRef<Monaco.editor.IEditorDecorationsCollection | null>(null);
  const [tabs, setTabs] = useState<string[]>([]);
  const [active, setActive] = useState<string | null>(null);
  const [dirty, setDirty] = useState<Set<string>>(new Set());
  const [conflict, setConflict] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [ready, setReady] = useState(false);
  const [cursor, setCursor] = useState<{ path: string; line: number } | null>(null);
  const saveRef = useRef<() => void>(() => undefined);
  const session = useRef(loadSourceSession());
  // True while a tab is being switched to: the model's default position is not the author's.
  const switching = useRef(false);
  const restoring = useRef<{ model: Monaco.editor.ITextModel; state: Monaco.editor.ICodeEditorViewState } | null>(null);
  /** Keeps the active tab's view state (and says it on the editor for tests and tools). */
  const remember = () => {
    const ed = editor.current;
    const key = [...files.current.values()].find((f) => f.model === ed?.getModel())?.key;
    const state = ed?.saveViewState();
    if (!ed || !key || !state || switching.current) return;
    session.current.views[key] = state;
    saveSourceSession(session.current);
    const sel = ed.getSelection();
    if (host.current && sel) {
      host.current.dataset.cursor = `${sel.positionLineNumber}:${sel.positionColumn}`;
      host.current.dataset.selection = `${sel.startLineNumber}:${sel.startColumn}-${sel.endLineNumber}:${sel.endColumn}`;
      host.current.dataset.scrollTop = String(Math.round(ed.getScrollTop()));
    }
  };
  /** Replaces a file's text (it changed on disk) without moving the editor when it is shown. */
  const replaceContent = (f: OpenFile, content: string) => {
    if (f.model.getValue() === content) return;
    const ed = editor.current;
    const state = ed?.getModel() === f.model ? ed.saveViewState() : null;
    f.model.setValue(content);
    if (state) ed?.restoreViewState(state);
  };
  // Opening a file waits for the editor: a click before Monaco has loaded still opens it.
  const editorReady = useRef<{ promise: Promise<void>; resolve: () => void } | null>(null);
  if (!editorReady.current) {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    editorReady.current = { promise, resolve };
  }

  // One editor for every tab; each file is a model.
  useEffect(() => {
    let disposed = false;
    let cleanup = () => {};
    loadMonaco()
      .then(({ monaco }) => {
        if (disposed || !host.current) return;
        monacoRef.current = monaco;
        const ed = monaco.editor.create(host.current, {
          theme: monacoTheme(),
          automaticLayout: true,
          minimap: { enabled: false },
          fontSize: 13,
          scrollBeyondLastLine: false,
          tabSize: 2,
          ariaLabel: 'Source file editor',
          fixedOverflowWidgets: true,
        });
        ed.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current());
        const moved = ed.onDidChangeCursorPosition((e) => {
          const path = [...files.current.values()].find((f) => f.model === ed.getModel())?.path;
          if (path) setCursor({ path, line: e.position.lineNumber });
          remember();
        });
        const scrolled = ed.onDidScrollChange(() => remember());
        // A restored view state is applied again when the editor's size settles (a bar above
        // it drawn later clamps the scroll) until the author touches the editor.
        const laidOut = ed.onDidLayoutChange(() => {
          const r = restoring.current;
          if (r && r.model === ed.getModel()) ed.restoreViewState(r.state);
        });
        const touched = [ed.onMouseDown, ed.onKeyDown].map((on) => on(() => (restoring.current = null)));
        host.current.addEventListener('wheel', () => (restoring.current = null), { passive: true });
        editor.current = ed;
        decorations.current = ed.createDecorationsCollection();
        setReady(true);
        editorReady.current?.resolve();
        cleanup = () => {
          for (const d of [moved, scrolled, laidOut, ...touched]) d.dispose();
          ed.dispose();
          for (const f of files.current.values()) f.model.dispose();
          files.current.clear();
        };
      })
      .catch((err) => setError(`The editor could not load: ${errorMessage(err)}`));
    return () => {
      disposed = true;
      cleanup();
    };
  }, []);

  /** Opens `path` (loading it once; as it was at `runId` when given, read-only), shows it,
   * and highlights lines `line`..`endLine`. */
  const open = async (path: string, line?: number, endLine?: number, runId?: string) => {
    await editorReady.current?.promise;
    const monaco = monacoRef.current;
    const ed = editor.current;
    if (!monaco || !ed) return;
    setError(null);
    const key = tabKey(path, runId);
    let file = files.current.get(key);
    if (!file) {
      let loaded;
      try {
        loaded = await fetchProjectFile(path, runId);
      } catch (err) {
        setError(`Could not open ${path}: ${errorMessage(err)}`);
        return;
      }
      const uri = monaco.Uri.parse(runId ? `file:///runs/${runId}/${path}` : `file:///project/${path}`);
      const model = monaco.editor.getModel(uri) ?? monaco.editor.createModel(loaded.content, languageOf(path), uri);
      model.setValue(loaded.content);
      file = { key, path, runId, saved: loaded.content, sha256: loaded.sha256, model };
      const f = file;
      model.onDidChangeContent(() =>
        setDirty((d) => {
          const next = new Set(d);
          if (f.model.getValue() === f.saved) next.delete(key);
          else next.add(key);
          return next;
        }),
      );
      files.current.set(key, file);
    }
    switching.current = true;
    ed.setModel(file.model);
    ed.updateOptions({ readOnly: Boolean(file.runId) });
    // The tab bar and toolbar drawn and the editor measured first: a scroll position is
    // kept only if the editor has its final height when it is restored.
    flushSync(() => {
      setTabs((t) => (t.includes(key) ? t : [...t, key]));
      setActive(key);
    });
    ed.layout();
    // Back to a tab: where the author left it (also after a page reload).
    const kept = session.current.views[key];
    restoring.current = !line && kept ? { model: file.model, state: kept } : null;
    if (!line && kept) ed.restoreViewState(kept);
    switching.current = false;
    if (line) {
      const last = Math.max(line, endLine ?? line);
      ed.revealLinesInCenter(line, Math.min(last, line + 20));
      ed.setPosition({ lineNumber: line, column: 1 });
      decorations.current?.set([
        {
          range: new monaco.Range(line, 1, last, 1),
          options: { isWholeLine: true, className: 'source-highlight', linesDecorationsClassName: 'source-highlight-gutter' },
        },
      ]);
      ed.focus();
    } else decorations.current?.clear();
    remember();
  };

  // The effects below call the latest `open` (it reads this render's state).
  const openRef = useRef(open);
  openRef.current = open;
  // The tabs open before (this view shown again, or the page reloaded), each where it was.
  const restored = useRef<Promise<void> | null>(null);
  useEffect(() => {
    if (!ready || restored.current) return;
    const { tabs: kept, active: keptActive } = loadSourceSession();
    restored.current = (async () => {
      for (const t of kept) await openRef.current(t.path, undefined, undefined, t.runId);
      const last = kept.find((t) => tabKey(t.path, t.runId) === keptActive);
      if (last && kept.length > 1) await openRef.current(last.path, undefined, undefined, last.runId);
    })();
  }, [ready]);
  // Keep the open tabs and the active one for the page's session.
  useEffect(() => {
    if (!restored.current) return;
    session.current.tabs = tabs.map((t) => files.current.get(t)).flatMap((f) => (f ? [{ path: f.path, runId: f.runId }] : []));
    session.current.active = active;
    saveSourceSession(session.current);
  }, [tabs, active]);

  // A target to open, once per request (shownTargets): a file and line (a span, a
  // diagnostic), or a node resolved by analysis. A later analysis (the lines moved after a
  // save) does not move the editor again.
  useEffect(() => {
    if (!ready || !target?.file || shownTargets.has(target)) return;
    shownTargets.add(target);
    void restored.current?.then(() => openRef.current(target.file!, target.line, undefined, target.runId));
  }, [ready, target]);
  const primary = nodeTargets.data ? primaryTarget(nodeTargets.data.targets, target?.prefer) : undefined;
  useEffect(() => {
    if (!ready || !target || target.file || !primary || shownTargets.has(target)) return;
    shownTargets.add(target);
    void restored.current?.then(() => openRef.current(primary.path, primary.line, primary.end_line));
  }, [ready, target, primary]);

  // The project's diagnostics (the manifest's and the dataset files') as markers in their files.
  const diagnosticsJson = JSON.stringify([...(project.data?.diagnostics ?? []), ...(project.data?.dataset_diagnostics ?? [])]);
  useEffect(() => {
    const monaco = monacoRef.current;
    if (!monaco) return;
    showDiagnostics(monaco, [...files.current.values()], JSON.parse(diagnosticsJson) as ProjectDiagnostic[]);
  }, [diagnosticsJson, tabs.length, ready]);

  // A file changed on disk (another editor, a git checkout) while open here: an untouched
  // tab follows it; one with unsaved edits gets the conflict warning at once.
  const onDisk = project.data?.file_sha256;
  useEffect(() => {
    if (!onDisk) return;
    for (const f of files.current.values()) {
      if (f.runId || f.saving || !onDisk[f.path] || onDisk[f.path] === f.sha256) continue;
      if (f.model.getValue() === f.saved) {
        void fetchProjectFile(f.path).then((loaded) => {
          if (f.model.getValue() !== f.saved) return; // typed into meanwhile: the next poll warns
          f.saved = loaded.content;
          f.sha256 = loaded.sha256;
          replaceContent(f, loaded.content);
        });
      } else setConflict(f.path);
    }
  }, [onDisk]);

  const doSave = async (overwrite = false) => {
    const file = active ? files.current.get(active) : undefined;
    if (!file || file.runId) return; // a file as it was at a run is read-only
    const content = file.model.getValue();
    file.saving = true;
    try {
      const res = await save.mutateAsync({ path: file.path, content, base_sha256: overwrite ? null : file.sha256 });
      file.saved = content;
      file.sha256 = res.sha256;
      setConflict(null);
      setDirty((d) => {
        const next = new Set(d);
        next.delete(file.path);
        return next;
      });
    } catch (err) {
      if (err instanceof ApiError && err.code === 'file_changed') setConflict(file.path);
      else setError(`Could not save ${file.path}: ${errorMessage(err)}`);
    } finally {
      file.saving = false;
    }
  };
  saveRef.current = () => void doSave();
  const reloadFromDisk = async (path: string) => {
    const file = files.current.get(path);
    if (!file) return;
    const loaded = await fetchProjectFile(path);
    file.saved = loaded.content;
    file.sha256 = loaded.sha256;
    replaceContent(file, loaded.content);
    setConflict(null);
  };

  const closeTab = (path: string) => {
    const file = files.current.get(path);
    if (file && dirty.has(path) && !window.confirm(`${path} has unsaved changes. Close it anyway?`)) return;
    file?.model.dispose();
    files.current.delete(path);
    delete session.current.views[path];
    setDirty((d) => {
      const next = new Set(d);
      next.delete(path);
      return next;
    });
    const rest = tabs.filter((t) => t !== path);
    setTabs(rest);
    if (active === path) {
      if (rest.length) void open(rest[rest.length - 1]);
      else {
        editor.current?.setModel(null);
        setActive(null);
      }
    }
  };
  const bridge = desktopBridge();
  const activeFile = active ? files.current.get(active) : undefined;
  const activePath = activeFile?.path ?? active;
  const where = cursor && activePath && cursor.path === activePath ? `${activePath}:${cursor.line}` : activePath;
  useBreakpointGutter(ready ? editor.current : null, monacoRef.current, activeFile && !activeFile.runId ? activeFile.path : null, host.current);

  return (
    <div className="source" data-testid="source-view" data-active-file={active ?? undefined} data-read-only={activeFile?.runId ? 'true' : undefined}>
      <FileTree name={project.data?.name ?? 'Project'} files={project.data?.files ?? []} active={active} onOpen={(f) => void open(f)} />
      <div className="source__main">
        {target?.node ? (
          <NodeTargets
            node={target.node}
            targets={nodeTargets.data?.targets}
            error={nodeTargets.isError ? errorMessage(nodeTargets.error) : null}
            onOpen={(t) => void open(t.path, t.line, t.end_line)}
          />
        ) : null}
        <TabBar tabs={tabs} active={active} dirty={dirty} fileOf={(t) => files.current.get(t)} onOpen={(t) => void open(t)} onClose={closeTab} />
        <SourceToolbar
          where={where}
          runId={activeFile?.runId}
          onOpenInEditor={bridge && activePath && !activeFile?.runId ? () => void bridge.openInEditor(activePath, cursor?.line) : undefined}
          canSave={Boolean(active && dirty.has(active)) && !save.isPending}
          saving={save.isPending}
          onSave={() => void doSave()}
        />
        {conflict ? (
          <div className="banner banner--warning" role="alert" data-testid="source-conflict">
            <code>{conflict}</code> changed on disk since you opened it.
            <button type="button" className="btn btn--small" onClick={() => void reloadFromDisk(conflict)}>
              Reload from disk
            </button>
            <button type="button" className="btn btn--small" onClick={() => void doSave(true)}>
              Overwrite with mine
            </button>
          </div>
        ) : null}
        {error ? (
          <p className="field-error" role="alert">
            {error}
          </p>
        ) : null}
        <div className="source__editor" ref={host} data-testid="source-editor" />
      </div>
    </div>
  );
}
