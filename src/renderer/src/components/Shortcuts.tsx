// Keyboard shortcuts and the sheet that lists them (`?`). Alt combinations are matched by
// physical key (`KeyboardEvent.code`), so they work on every layout and on macOS, where
// Option changes the typed character.
import { useEffect, useRef, useState } from 'react';
import { useCreateSession, useRuns } from '../api/queries.ts';
import { useUi, type MainView } from '../state/ui.ts';
import { SEND_SHORTCUT } from './composer/Composer.tsx';
import { Modal } from './Modal.tsx';

export const SHORTCUTS: { keys: string; does: string }[] = [
  { keys: SEND_SHORTCUT, does: 'Send (from the message, a data part or any composer field)' },
  { keys: 'Alt+N', does: 'New session' },
  { keys: 'Alt+M', does: 'Write a message (focus the composer)' },
  { keys: 'Alt+↓ / Alt+↑', does: 'Next / previous run of the session' },
  { keys: 'Alt+C', does: 'Compare the open run with another' },
  { keys: 'Alt+1 … Alt+5', does: 'Runs / Graph / Compare / Source / Evals' },
  { keys: '?', does: 'Show or hide this list' },
  { keys: 'Esc', does: 'Close a dialog' },
];

const VIEW_CODES: Record<string, MainView> = { Digit1: 'run', Digit2: 'graph', Digit3: 'compare', Digit4: 'source', Digit5: 'evals' };

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable || !!el.closest?.('.monaco-editor'));
}

export function useShortcuts(onSheet: () => void): void {
  const sessionId = useUi((s) => s.sessionId);
  const runs = useRuns(sessionId);
  const create = useCreateSession();
  const state = useRef({ runs: runs.data, create, onSheet });
  state.current = { runs: runs.data, create, onSheet };

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const ui = useUi.getState();
      if (!e.altKey && !e.ctrlKey && !e.metaKey && e.key === '?' && !typingIn(e.target)) {
        e.preventDefault();
        state.current.onSheet();
        return;
      }
      if (!e.altKey || e.ctrlKey || e.metaKey) return;
      const view = VIEW_CODES[e.code];
      if (view) {
        e.preventDefault();
        ui.setView(view);
      } else if (e.code === 'KeyN') {
        e.preventDefault();
        void state.current.create.mutateAsync(undefined).then((s) => ui.selectSession(s.session_id));
      } else if (e.code === 'KeyM') {
        e.preventDefault();
        ui.setView('run');
        requestAnimationFrame(() => document.getElementById('composer-text')?.focus());
      } else if ((e.code === 'ArrowDown' || e.code === 'ArrowUp') && ui.sessionId) {
        const list = [...(state.current.runs ?? [])].sort((a, b) => a.created_at.localeCompare(b.created_at));
        if (list.length === 0) return;
        e.preventDefault();
        const at = list.findIndex((r) => r.run_id === ui.runId);
        const next = at < 0 ? list.length - 1 : Math.max(0, Math.min(list.length - 1, at + (e.code === 'ArrowDown' ? 1 : -1)));
        ui.selectRun(ui.sessionId, list[next].run_id);
      } else if (e.code === 'KeyC' && ui.runId) {
        e.preventDefault();
        ui.openCompare(ui.runId, null);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

export function ShortcutSheet({ open, onClose }: { open: boolean; onClose: () => void }) {
  return (
    <Modal open={open} title="Keyboard shortcuts" onClose={onClose} testId="shortcut-sheet">
      <table className="table table--compact">
        <caption className="visually-hidden">Keyboard shortcuts</caption>
        <tbody>
          {SHORTCUTS.map((s) => (
            <tr key={s.keys}>
              <th scope="row">
                <kbd>{s.keys}</kbd>
              </th>
              <td>{s.does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="dialog__actions">
        <button type="button" className="btn" onClick={onClose} data-testid="shortcut-sheet-close">
          Close
        </button>
      </div>
    </Modal>
  );
}

/** The sheet, toggled by `?`, with every shortcut bound. */
export function Shortcuts() {
  const [open, setOpen] = useState(false);
  useShortcuts(() => setOpen((o) => !o));
  return <ShortcutSheet open={open} onClose={() => setOpen(false)} />;
}
