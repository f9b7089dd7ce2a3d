// The studio's layout: top bar, sessions sidebar, and the main area (a run's timeline with
// the composer, the graph, the comparison of two runs, the source, or the evals: datasets
// and experiments).
import { useEffect, useMemo, useRef } from 'react';
import { useCreateSession, useRuns, useSessions } from './api/queries.ts';
import { Announcer } from './components/Announcer.tsx';
import { Shortcuts } from './components/Shortcuts.tsx';
import { Composer, SEND_SHORTCUT } from './components/composer/Composer.tsx';
import { EmptyState } from './components/EmptyState.tsx';
import { GraphPanel } from './components/graph/GraphPanel.tsx';
import { CompareView } from './components/compare/CompareView.tsx';
import { SourceView } from './components/source/SourceView.tsx';
import { EvalsView } from './components/evals/EvalsView.tsx';
import { useProject } from './api/project.ts';
import { useSession } from './api/branches.ts';
import { RunView } from './components/run/RunView.tsx';
import { Transcript } from './components/run/Transcript.tsx';
import { ThreadHistory } from './components/run/ThreadHistory.tsx';
import { Sidebar } from './components/Sidebar.tsx';
import { TopBar } from './components/TopBar.tsx';
import { useUi } from './state/ui.ts';
import { SessionUsage } from './components/SessionUsage.tsx';

const MODE_LABEL = { run: 'Run timeline', conversation: 'Conversation', state: 'State' } as const;

function SessionMain({ sessionId }: { sessionId: string }) {
  const runId = useUi((s) => s.runId);
  const selectRun = useUi((s) => s.selectRun);
  const mode = useUi((s) => s.sessionMode);
  const setMode = useUi((s) => s.setSessionMode);
  const runs = useRuns(sessionId);
  const session = useSession(sessionId);
  const experiment = session.data?.experiment_id ?? null;

  // Opening a session shows its latest run.
  const latest = runs.data?.length ? [...runs.data].sort((a, b) => a.created_at.localeCompare(b.created_at)).at(-1) : undefined;
  useEffect(() => {
    if (!runId && latest) selectRun(sessionId, latest.run_id);
  }, [runId, latest, sessionId, selectRun]);

  return (
    <div className="session-main">
      {runs.data?.length ? (
        <div className="segmented session-main__mode" role="group" aria-label="Show">
          {(['run', 'conversation', 'state'] as const).map((m) => (
            <button
              key={m}
              type="button"
              className={`segmented__btn${mode === m ? ' is-on' : ''}`}
              aria-pressed={mode === m}
              onClick={() => setMode(m)}
              data-testid={`session-mode-${m}`}
              title={m === 'state' ? 'The thread’s state now, and every checkpoint before it' : undefined}
            >
              {MODE_LABEL[m]}
            </button>
          ))}
        </div>
      ) : null}
      {runs.data?.length ? <SessionUsage sessionId={sessionId} version={runs.data.map((r) => `${r.run_id}:${r.status}`).join(',')} /> : null}
      <div className="session-main__scroll">
        {mode === 'conversation' && runs.data?.length ? (
          <Transcript key={sessionId} sessionId={sessionId} />
        ) : mode === 'state' && runs.data?.length ? (
          <ThreadHistory sessionId={sessionId} />
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
      {experiment ? (
        // An experiment's case session keeps what the experiment ran: it takes no messages.
        <p className="muted session-main__note" data-testid="experiment-session-note">
          This session runs a case of an experiment; it takes no messages. Send in a session of your own.
        </p>
      ) : (
        <Composer sessionId={sessionId} />
      )}
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

  // A session from the URL that no longer exists is dropped. A conversation branch is not in
  // the list (it is grouped under its root), nor is an experiment's hidden session (a failing
  // case's run opens in it): each is known when it answers on its own.
  const one = useSession(sessionId);
  const known = useMemo(
    () => new Set([...(sessions.data?.map((s) => s.session_id) ?? []), ...(one.data ? [one.data.session_id] : [])]),
    [sessions.data, one.data],
  );
  // (Asked once more first: the session may be newer than the list, e.g. a link or an import.)
  const rechecked = useRef<string | null>(null);
  const { isSuccess: sessionsLoaded, isFetching: sessionsFetching, refetch: refetchSessions } = sessions;
  useEffect(() => {
    if (!sessionsLoaded || !sessionId || known.has(sessionId) || sessionsFetching || one.isFetching) return;
    if (rechecked.current !== sessionId) {
      rechecked.current = sessionId;
      void refetchSessions();
      return;
    }
    selectSession(null);
  }, [sessionsLoaded, sessionsFetching, refetchSessions, sessionId, known, selectSession, one.isFetching]);

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
          {view === 'graph' ? <GraphPanel sessionId={validSession} /> : null}
          {view === 'compare' ? <CompareView /> : null}
          {view === 'source' ? <SourceView /> : null}
          {view === 'evals' ? <EvalsView /> : null}
          {view === 'run' ? validSession ? <SessionMain key={validSession} sessionId={validSession} /> : sessions.isSuccess ? <NoSession /> : null : null}
        </main>
      </div>
      <Announcer />
      <Shortcuts />
    </div>
  );
}
