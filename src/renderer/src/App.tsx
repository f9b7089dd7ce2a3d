// The studio's layout: top bar, sessions sidebar, and the main area (a run's timeline with
// the composer, the graph, the comparison of two runs, or the source).
import { useEffect, useMemo, useRef } from 'react';
import { useCreateSession, useRuns, useSessions } from './api/queries.ts';
import type { GraphNode, GraphView as AgentGraph } from '../../shared/graph-view.ts';
import { useAgentGraph } from './api/queries.ts';
import { Announcer } from './components/Announcer.tsx';
import { Shortcuts } from './components/Shortcuts.tsx';
import { Composer, SEND_SHORTCUT } from './components/composer/Composer.tsx';
import { EmptyState } from './components/EmptyState.tsx';
import { GraphView, type RunOverlay } from './components/graph/GraphView.tsx';
import { runEndOf, useRunStream } from './hooks/useRunStream.ts';
import { buildSpans, graphPath } from '../../shared/spans.ts';
import { isActive } from '../../shared/playground.ts';
import { CompareView } from './components/compare/CompareView.tsx';
import { SourceView } from './components/source/SourceView.tsx';
import { useProject } from './api/project.ts';
import { RunView } from './components/run/RunView.tsx';
import { Transcript } from './components/run/Transcript.tsx';
import { Sidebar } from './components/Sidebar.tsx';
import { TopBar } from './components/TopBar.tsx';
import { useUi } from './state/ui.ts';

function SessionMain({ sessionId }: { sessionId: string }) {
  const runId = useUi((s) => s.runId);
  const selectRun = useUi((s) => s.selectRun);
  const mode = useUi((s) => s.sessionMode);
  const setMode = useUi((s) => s.setSessionMode);
  const runs = useRuns(sessionId);

  // Opening a session shows its latest run.
  const latest = runs.data?.length ? [...runs.data].sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1) : undefined;
  useEffect(() => {
    if (!runId && latest) selectRun(sessionId, latest.run_id);
  }, [runId, latest, sessionId, selectRun]);

  return (
    <div className="session-main">
      {runs.data?.length ? (
        <div className="segmented session-main__mode" role="group" aria-label="Show">
          {(['run', 'conversation'] as const).map((m) => (
            <button
              key={m}
              type="button"
              className={`segmented__btn${mode === m ? ' is-on' : ''}`}
              aria-pressed={mode === m}
              onClick={() => setMode(m)}
              data-testid={`session-mode-${m}`}
            >
              {m === 'run' ? 'Run timeline' : 'Conversation'}
            </button>
          ))}
        </div>
      ) : null}
      <div className="session-main__scroll">
        {mode === 'conversation' && runs.data?.length ? (
          <Transcript sessionId={sessionId} />
        ) : runId ? (
          <RunView key={runId} runId={runId} />
        ) : runs.isSuccess && runs.data.length === 0 ? (
          <EmptyState icon="mail" title="Send the first message" testId="session-empty">
            <p>Write to the agent below. You can add structured data (JSON, checked against the project’s input contracts), files, and metadata.</p>
            <p className="muted">
              <kbd>{SEND_SHORTCUT}</kbd> sends. Each message becomes a run you can watch live, cancel, rerun or resume.
            </p>
          </EmptyState>
        ) : null}
      </div>
      <Composer sessionId={sessionId} />
    </div>
  );
}

function GoToSource({ node }: { node: string }) {
  const openSource = useUi((s) => s.openSource);
  return (
    <button type="button" className="btn btn--small" data-testid="node-go-to-source" onClick={() => openSource({ node })}>
      Go to source
    </button>
  );
}

function NodeDetails({ node, graph }: { node: GraphNode; graph: AgentGraph }) {
  const label = (id: string) => graph.nodes.find((n) => n.id === id)?.label ?? id;
  const edgeList = (edges: AgentGraph['edges'], end: 'source' | 'target') =>
    edges.length ? (
      <ul className="node-details__edges">
        {edges.map((e) => (
          <li key={`${e.source}-${e.target}`}>
            <code>{label(e[end])}</code>
            {e.conditional ? <span className="muted"> · conditional</span> : null}
            {e.label ? <span className="muted"> · {e.label}</span> : null}
          </li>
        ))}
      </ul>
    ) : (
      <p className="muted">none</p>
    );
  return (
    <section className="node-details" data-testid="node-details" aria-labelledby="node-details-title">
      <h2 id="node-details-title">
        <code data-testid="selected-node">{node.id}</code>
      </h2>
      {node.exit ? <p className="muted">Exit node: its model output is what streams.</p> : null}
      <GoToSource node={node.id} />
      <h3 className="subhead">Comes from</h3>
      {edgeList(
        graph.edges.filter((e) => e.target === node.id),
        'source',
      )}
      <h3 className="subhead">Goes to</h3>
      {edgeList(
        graph.edges.filter((e) => e.source === node.id),
        'target',
      )}
    </section>
  );
}

/** The selected run's path through the graph, live while it runs. */
function useRunOverlay(runId: string | null): RunOverlay | undefined {
  const stream = useRunStream(runId);
  if (!runId) return undefined;
  const traces = stream.traces.map((e) => ({ name: e.name, ts: e.ts, data: (e.data ?? {}) as Record<string, unknown> }));
  // A span the run's end left open (a run stored before the closing rule) ended with it.
  const path = graphPath(buildSpans(traces, runEndOf(stream)));
  return { runId, path, ended: stream.status !== null && !isActive(stream.status) };
}

function GraphPanel() {
  const selectedNodeId = useUi((s) => s.selectedNodeId);
  const selectNode = useUi((s) => s.selectNode);
  const runId = useUi((s) => s.runId);
  const graph = useAgentGraph();
  const overlay = useRunOverlay(runId);
  const node = graph.data?.nodes.find((n) => n.id === selectedNodeId) ?? null;
  const onNodeSelect = (n: GraphNode) => selectNode(n.id);
  return (
    <div className="graph-panel">
      <div className="graph-panel__canvas">
        <GraphView selectedNodeId={selectedNodeId} onNodeSelect={onNodeSelect} overlay={overlay} />
      </div>
      <aside className="graph-panel__side" aria-label="Selected node">
        {node && graph.data ? <NodeDetails node={node} graph={graph.data} /> : <p className="muted">Select a node: “Go to source” opens its function.</p>}
      </aside>
    </div>
  );
}

function NoSession() {
  const create = useCreateSession();
  const selectSession = useUi((s) => s.selectSession);
  return (
    <EmptyState
      icon="spark"
      title="Start a session"
      testId="no-session"
      action={
        <button
          type="button"
          className="btn btn--primary"
          disabled={create.isPending}
          onClick={async () => selectSession((await create.mutateAsync(undefined)).session_id)}
          data-testid="empty-new-session"
        >
          + New session
        </button>
      }
    >
      <p>A session is one conversation with your agent: every message you send becomes a run you can watch live, resume, rerun and compare.</p>
      <p className="muted">Create a session, or pick one in the sidebar.</p>
    </EmptyState>
  );
}

/** A project that does not load, as soon as the studio knows: every diagnostic, each
 * opening the source view at its line. */
function ProjectBanner() {
  const project = useProject();
  const openSource = useUi((s) => s.openSource);
  const p = project.data;
  if (!p || p.state !== 'invalid' || p.diagnostics.length === 0) return null;
  return (
    <div className="banner banner--danger project-banner" role="alert" data-testid="project-banner">
      <strong>The project does not load.</strong> Runs are paused until it does; fix these and save:
      <ul>
        {p.diagnostics.map((d, i) => (
          <li key={i}>
            <button
              type="button"
              className="linkbtn"
              onClick={() => openSource({ file: d.file, line: d.line, column: d.column })}
              data-testid="project-diagnostic"
            >
              <code>{`${d.file}${d.line ? `:${d.line}` : ''}${d.column ? `:${d.column}` : ''}`}</code>
            </button>{' '}
            {d.field ? <code>[{d.field}]</code> : null} {d.message}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function App() {
  const sessions = useSessions();
  const sessionId = useUi((s) => s.sessionId);
  const view = useUi((s) => s.view);
  const selectSession = useUi((s) => s.selectSession);

  // The explicit ready marker for tests and tools (conventions.md).
  useEffect(() => {
    if (sessions.isSuccess) document.getElementById('root')?.setAttribute('data-app-state', 'ready');
  }, [sessions.isSuccess]);

  // A session from the URL that no longer exists is dropped.
  const known = useMemo(() => new Set(sessions.data?.map((s) => s.session_id)), [sessions.data]);
  // (Asked once more first: the session may be newer than the list, e.g. a link or an import.)
  const rechecked = useRef<string | null>(null);
  const { isSuccess: sessionsLoaded, isFetching: sessionsFetching, refetch: refetchSessions } = sessions;
  useEffect(() => {
    if (!sessionsLoaded || !sessionId || known.has(sessionId) || sessionsFetching) return;
    if (rechecked.current !== sessionId) {
      rechecked.current = sessionId;
      void refetchSessions();
      return;
    }
    selectSession(null);
  }, [sessionsLoaded, sessionsFetching, refetchSessions, sessionId, known, selectSession]);

  const validSession = sessionId && known.has(sessionId) ? sessionId : null;

  return (
    <div className="app" data-testid="app">
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      <TopBar />
      <ProjectBanner />
      <div className="app__body">
        <Sidebar />
        <main id="main" className="main" tabIndex={-1} data-testid="main" data-view={view}>
          {view === 'graph' ? <GraphPanel /> : null}
          {view === 'compare' ? <CompareView /> : null}
          {view === 'source' ? <SourceView /> : null}
          {view === 'run' ? validSession ? <SessionMain key={validSession} sessionId={validSession} /> : sessions.isSuccess ? <NoSession /> : null : null}
        </main>
      </div>
      <Announcer />
      <Shortcuts />
    </div>
  );
}
