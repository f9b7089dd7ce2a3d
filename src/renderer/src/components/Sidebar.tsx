// Sessions sidebar: create, select, delete (with confirmation); the selected session lists
// its runs with a state badge and reason.
import { useDeferredValue, useState } from 'react';
import type { RunSummary, Session } from '../../../shared/playground.ts';
import { useCreateSession, useDeleteSession, useRenameSession, useRuns, useSessions } from '../api/queries.ts';
import { errorMessage } from '../api/client.ts';
import { useUi } from '../state/ui.ts';
import { useLayout } from '../state/layout.ts';
import { formatDateTime, formatTime, shortId } from '../lib/format.ts';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { Icon } from './Icon.tsx';
import { StatusBadge } from './StatusBadge.tsx';
import { ForkMark } from './run/ForkActions.tsx';
import { BranchMark, ImportedMark, RunCount } from './SessionMarks.tsx';
import { useRootSessionId } from '../api/branches.ts';

function sessionTitle(s: Session): string {
  return s.title?.trim() || `Session ${shortId(s.session_id)}`;
}

const ORIGIN_LABEL: Record<RunSummary['origin'], string> = { send: 'Message', resume: 'Reply', rerun: 'Rerun' };

function RunList({ sessionId }: { sessionId: string }) {
  const runs = useRuns(sessionId);
  const runId = useUi((s) => s.runId);
  const selectRun = useUi((s) => s.selectRun);
  const openCompare = useUi((s) => s.openCompare);
  // Two runs ticked here open the compare view, the older one as the baseline (left).
  const [picked, setPicked] = useState<string[]>([]);
  const togglePick = (id: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id].slice(-2) : p.filter((x) => x !== id)));

  if (runs.isPending) return <p className="sidebar__hint">Loading runs…</p>;
  if (runs.isError) return <p className="sidebar__hint sidebar__hint--error">Could not load runs: {errorMessage(runs.error)}</p>;
  const items = [...runs.data].sort((a, b) => a.created_at.localeCompare(b.created_at));
  if (items.length === 0)
    return (
      <p className="sidebar__hint" data-testid="runs-empty">
        No runs yet. Write a message below and press Send.
      </p>
    );

  const pickedInOrder = items.filter((r) => picked.includes(r.run_id)).map((r) => r.run_id);
  return (
    <>
      {pickedInOrder.length === 2 ? (
        <div className="runlist__compare">
          <button
            type="button"
            className="btn btn--small btn--primary"
            onClick={() => openCompare(pickedInOrder[0], pickedInOrder[1])}
            data-testid="compare-picked"
          >
            Compare the 2 ticked runs
          </button>
          <button type="button" className="btn btn--small btn--ghost" onClick={() => setPicked([])}>
            Clear
          </button>
        </div>
      ) : items.length > 1 ? (
        <p className="sidebar__hint small">Tick two runs to compare them.</p>
      ) : null}
      <ol className="runlist" aria-label="Runs of this session" data-testid="run-list">
        {items.map((r, i) => (
          <li key={r.run_id} className="runlist__entry">
            <input
              type="checkbox"
              className="runlist__pick"
              checked={picked.includes(r.run_id)}
              onChange={(e) => togglePick(r.run_id, e.target.checked)}
              aria-label={`Tick run #${i + 1} to compare it`}
              data-testid="run-pick"
              data-run-id={r.run_id}
            />
            <button
              type="button"
              className={`runlist__item${r.run_id === runId ? ' is-selected' : ''}`}
              aria-current={r.run_id === runId ? 'true' : undefined}
              onClick={() => selectRun(sessionId, r.run_id)}
              data-testid="run-item"
              data-run-id={r.run_id}
              data-status={r.status}
              title={`${r.run_id} · ${formatDateTime(r.created_at)}`}
            >
              <span className="runlist__top">
                <span className="runlist__index">#{i + 1}</span>
                <span className="runlist__origin">{ORIGIN_LABEL[r.origin] ?? r.origin}</span>
                <span className="runlist__time">{formatTime(r.created_at)}</span>
              </span>
              {r.input_preview ? (
                <span className="runlist__preview" data-testid="run-preview">
                  {r.input_preview}
                </span>
              ) : null}
              <span className="runlist__badges">
                <StatusBadge status={r.status} reason={r.reason} compact />
                {r.status === 'input_required' ? (
                  r.answered_by ? (
                    <span className="pill pill--equal" data-testid="run-answered" title={`Answered by ${r.answered_by}`}>
                      answered
                    </span>
                  ) : (
                    <span className="pill pill--changed" data-testid="run-waiting">
                      waiting for you
                    </span>
                  )
                ) : null}
              </span>
            </button>
          </li>
        ))}
      </ol>
      {runs.hasNextPage ? (
        <button type="button" className="btn btn--ghost btn--small" onClick={() => runs.fetchNextPage()} disabled={runs.isFetchingNextPage}>
          {runs.isFetchingNextPage ? 'Loading…' : 'Load older runs'}
        </button>
      ) : null}
    </>
  );
}

/** A session's title, renamed in place (Enter or leaving the field saves, Esc cancels). */
function SessionTitle({ session, editing, onDone }: { session: Session; editing: boolean; onDone: () => void }) {
  const rename = useRenameSession();
  const [value, setValue] = useState(session.title);
  if (!editing) return <span className="session__title">{sessionTitle(session)}</span>;
  const save = async () => {
    const title = value.trim();
    if (title && title !== session.title) await rename.mutateAsync({ sessionId: session.session_id, title }).catch(() => undefined);
    onDone();
  };
  return (
    <input
      className="input input--small session__rename"
      value={value}
      maxLength={200}
      autoFocus
      aria-label="Session title"
      data-testid="session-rename-input"
      onChange={(e) => setValue(e.target.value)}
      onClick={(e) => e.stopPropagation()}
      onKeyDown={(e) => {
        e.stopPropagation();
        if (e.key === 'Enter') void save();
        if (e.key === 'Escape') onDone();
      }}
      onBlur={() => void save()}
    />
  );
}

/** Hides or shows the sessions column (remembered, state/layout.ts). */
function SidebarToggle({ collapsed, onToggle }: { collapsed: boolean; onToggle: () => void }) {
  const label = collapsed ? 'Show sessions' : 'Hide sessions';
  return (
    <button
      type="button"
      className="iconbtn sidebar__toggle"
      aria-label={label}
      title={label}
      aria-expanded={!collapsed}
      onClick={onToggle}
      data-testid="sidebar-toggle"
    >
      <Icon name={collapsed ? 'chevron-right' : 'chevron-left'} />
    </button>
  );
}

export function Sidebar() {
  const [search, setSearch] = useState('');
  const deferredSearch = useDeferredValue(search);
  const sessions = useSessions(deferredSearch);
  const [renaming, setRenaming] = useState<string | null>(null);
  const create = useCreateSession();
  const del = useDeleteSession();
  const sessionId = useUi((s) => s.sessionId);
  const rootId = useRootSessionId(sessionId);
  const selectSession = useUi((s) => s.selectSession);
  const [pendingDelete, setPendingDelete] = useState<Session | null>(null);

  const collapsed = useLayout((l) => l.sidebarCollapsed);
  const toggleSidebar = useLayout((l) => l.toggleSidebar);

  const onCreate = async () => {
    const s = await create.mutateAsync(undefined);
    selectSession(s.session_id);
  };

  const list = sessions.data ? [...sessions.data].sort((a, b) => b.created_at.localeCompare(a.created_at)) : [];

  // Collapsed, the column is a narrow rail with the one button that opens it again: the
  // source view's files and editor get its width (docs/studio-ui.md, Layout).
  if (collapsed)
    return (
      <nav className="sidebar sidebar--collapsed" aria-label="Sessions" data-testid="sidebar" data-collapsed="true">
        <SidebarToggle collapsed onToggle={toggleSidebar} />
      </nav>
    );

  return (
    <nav className="sidebar" aria-label="Sessions" data-testid="sidebar" data-collapsed="false">
      <div className="sidebar__header">
        <SidebarToggle collapsed={false} onToggle={toggleSidebar} />
        <h2 className="sidebar__title">Sessions</h2>
        <button type="button" className="btn btn--primary btn--small" onClick={onCreate} disabled={create.isPending} data-testid="new-session">
          + New session
        </button>
      </div>
      {del.isError ? (
        <p className="sidebar__hint sidebar__hint--error" role="alert">
          Could not delete the session: {errorMessage(del.error)}
        </p>
      ) : null}
      {create.isError ? (
        <p className="sidebar__hint sidebar__hint--error" role="alert">
          Could not create a session: {errorMessage(create.error)}
        </p>
      ) : null}

      <div className="sidebar__search">
        <input
          className="input input--small"
          type="search"
          placeholder="Find sessions by title or message…"
          aria-label="Find sessions"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          data-testid="session-search"
        />
      </div>

      <div className="sidebar__scroll">
        {sessions.isPending ? <p className="sidebar__hint">Loading sessions…</p> : null}
        {sessions.isError ? (
          <div className="sidebar__hint sidebar__hint--error" role="alert">
            Could not reach the studio: {errorMessage(sessions.error)}{' '}
            <button type="button" className="btn btn--small" onClick={() => sessions.refetch()}>
              Retry
            </button>
          </div>
        ) : null}
        {sessions.isSuccess && list.length === 0 && deferredSearch.trim() ? (
          <p className="sidebar__hint" data-testid="sessions-no-match">
            No session matches “{deferredSearch.trim()}”.
          </p>
        ) : null}
        {sessions.isSuccess && list.length === 0 && !deferredSearch.trim() ? (
          <div className="sidebar__empty" data-testid="sessions-empty">
            <p>No sessions yet.</p>
            <p>A session is one conversation with your agent. Create one to send the first message.</p>
          </div>
        ) : null}

        <ul className="sessionlist" data-testid="session-list">
          {list.map((s) => {
            // A branch is listed under its root: the root stays selected, with the branch's runs below.
            const selected = s.session_id === rootId;
            return (
              <li key={s.session_id} className={`session${selected ? ' is-selected' : ''}`} data-testid="session-item" data-session-id={s.session_id}>
                <div className="session__row">
                  <button
                    type="button"
                    className="session__select"
                    aria-current={selected ? 'true' : undefined}
                    aria-expanded={selected}
                    onClick={() => selectSession(s.session_id)}
                    data-testid="session-select"
                  >
                    <SessionTitle session={s} editing={renaming === s.session_id} onDone={() => setRenaming(null)} />
                    <span className="session__meta">
                      <ImportedMark session={s} />
                      <ForkMark session={s} />
                      <BranchMark session={s} />
                      <RunCount session={s} selected={selected} /> · {formatDateTime(s.updated_at || s.created_at)}
                    </span>
                    {s.last_run_status && !selected ? <StatusBadge status={s.last_run_status} compact /> : null}
                  </button>
                  <button
                    type="button"
                    className="iconbtn"
                    aria-label={`Rename ${sessionTitle(s)}`}
                    title="Rename session"
                    onClick={() => setRenaming(s.session_id)}
                    data-testid="session-rename"
                  >
                    <Icon name="pencil" />
                  </button>
                  <button
                    type="button"
                    className="iconbtn iconbtn--danger"
                    aria-label={`Delete ${sessionTitle(s)}`}
                    title="Delete session"
                    onClick={() => setPendingDelete(s)}
                    data-testid="session-delete"
                  >
                    <Icon name="trash" />
                  </button>
                </div>
                {selected ? <RunList sessionId={sessionId ?? s.session_id} /> : null}
              </li>
            );
          })}
        </ul>
      </div>

      <ConfirmDialog
        open={pendingDelete !== null}
        title="Delete this session?"
        body={
          pendingDelete
            ? `“${sessionTitle(pendingDelete)}” and its ${pendingDelete.run_count} run(s)${pendingDelete.branch_count ? `, its ${pendingDelete.branch_count} branch(es)` : ''}, their events and any files no other session uses will be deleted. This cannot be undone.`
            : ''
        }
        confirmLabel="Delete session"
        danger
        busy={del.isPending}
        onCancel={() => setPendingDelete(null)}
        onConfirm={async () => {
          if (!pendingDelete) return;
          const id = pendingDelete.session_id;
          await del.mutateAsync(id).catch(() => undefined);
          if (useUi.getState().sessionId === id || rootId === id) selectSession(null);
          setPendingDelete(null);
        }}
      />
    </nav>
  );
}
