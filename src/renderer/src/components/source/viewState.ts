// Where the author was in the source view, kept for the page's session (sessionStorage):
// the open tabs, the active one, and per tab Monaco's view state (cursor, selection,
// scroll). A save, the project reload that follows it, a switch of tab or of view and a
// reload of the page leave the editor where it was (docs/studio-ui.md, Source).
import type * as Monaco from 'monaco-editor';
import type { SourceTarget } from '../../state/ui.ts';

const KEY = 'agent-studio.source.v1';

export interface StoredTab {
  path: string;
  runId?: string;
}

export interface SourceSession {
  tabs: StoredTab[];
  active: string | null;
  /** Monaco's view state per tab key (`path`, or `path@run`). */
  views: Record<string, Monaco.editor.ICodeEditorViewState>;
}

function storage(): Storage | null {
  try {
    return typeof window === 'undefined' ? null : window.sessionStorage;
  } catch {
    return null; // storage disabled: the view still works, it only forgets on reload
  }
}

export function loadSourceSession(): SourceSession {
  const empty: SourceSession = { tabs: [], active: null, views: {} };
  try {
    const raw = storage()?.getItem(KEY);
    if (!raw) return empty;
    const parsed = JSON.parse(raw) as Partial<SourceSession>;
    return {
      tabs: Array.isArray(parsed.tabs) ? parsed.tabs.filter((t) => typeof t?.path === 'string') : [],
      active: typeof parsed.active === 'string' ? parsed.active : null,
      views: parsed.views && typeof parsed.views === 'object' ? parsed.views : {},
    };
  } catch {
    return empty;
  }
}

export function saveSourceSession(session: SourceSession): void {
  try {
    storage()?.setItem(KEY, JSON.stringify(session));
  } catch {
    // full or disabled storage: nothing to keep
  }
}

/** The tab key of a file, as it is now or as it was at a run. */
export function tabKey(path: string, runId?: string): string {
  return runId ? `${path}@${runId}` : path;
}

/** "Go to source" requests already shown. A request moves the editor once, when it is made:
 * neither a fresh analysis after a save (the node's lines moved) nor coming back to the
 * source view opens it again. Held for the page's life, as the request object is. */
export const shownTargets = new WeakSet<SourceTarget>();
