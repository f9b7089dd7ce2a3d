// The app bar: the view switcher, the project (desktop app: open another), the runtime child's
// state and where its spans go, whom runs call the runtime as (the connection profile), bundle actions.
import { useState } from 'react';
import { errorMessage } from '../api/client.ts';
import { useAgentGraph } from '../api/queries.ts';
import { useProject } from '../api/project.ts';
import { desktopBridge } from '../lib/bridge.ts';
import { useUi, type MainView } from '../state/ui.ts';
import { BundleActions } from './bundles/BundleDialogs.tsx';
import { ConnectionControl } from './ConnectionDialog.tsx';
import { RuntimeState } from './RuntimeState.tsx';

const VIEWS: { id: MainView; label: string; shortcut: string }[] = [
  { id: 'run', label: 'Runs', shortcut: '1' },
  { id: 'graph', label: 'Graph', shortcut: '2' },
  { id: 'compare', label: 'Compare', shortcut: '3' },
  { id: 'source', label: 'Source', shortcut: '4' },
  { id: 'evals', label: 'Evals', shortcut: '5' },
];

/** Edits seen on disk and whether the agent runs them yet. */
function ProjectState() {
  const project = useProject();
  const p = project.data;
  if (!p) return null;
  if (p.state === 'loading' || p.pending_changes.length) {
    return (
      <span className="topbar__state topbar__state--pending" data-testid="project-state" data-state="pending" title={p.pending_changes.join(', ')}>
        Edited · reloading…
      </span>
    );
  }
  if (p.state === 'invalid') {
    return (
      <span className="topbar__state topbar__state--invalid" data-testid="project-state" data-state="invalid">
        Does not load
      </span>
    );
  }
  return null;
}

export function TopBar() {
  const view = useUi((s) => s.view);
  const setView = useUi((s) => s.setView);
  const graph = useAgentGraph();
  const bridge = desktopBridge();
  const [openError, setOpenError] = useState<string | null>(null);

  return (
    <header className="topbar" data-testid="topbar">
      <div className="topbar__brand">
        <span className="topbar__logo" aria-hidden="true">
          ◆
        </span>
        <span className="topbar__name">Agent Studio</span>
        {graph.data?.agent ? (
          <span className="topbar__project" data-testid="project-name" title="The agent project this studio runs">
            {graph.data.agent}
          </span>
        ) : null}
        {bridge ? (
          <button
            type="button"
            className="btn btn--small btn--ghost"
            onClick={async () => {
              setOpenError(null);
              try {
                // The main process loads the new project's studio into this window itself.
                await bridge.openProjectFolder();
              } catch (err) {
                setOpenError(errorMessage(err));
              }
            }}
          >
            Open project…
          </button>
        ) : null}
        {openError ? (
          <span className="field-error" role="alert">
            {openError}
          </span>
        ) : null}
      </div>
      <ProjectState />
      <RuntimeState />
      <nav className="viewtabs" aria-label="Views">
        {VIEWS.map((v) => (
          <button
            key={v.id}
            type="button"
            className={`viewtab${view === v.id ? ' is-active' : ''}`}
            aria-current={view === v.id ? 'page' : undefined}
            onClick={() => setView(v.id)}
            title={`${v.label} (Alt+${v.shortcut})`}
            data-testid={`view-${v.id}`}
          >
            {v.label}
          </button>
        ))}
      </nav>
      <ConnectionControl />
      <BundleActions />
    </header>
  );
}
