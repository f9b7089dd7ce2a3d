// Fork and re-run from a checkpoint (docs/playground-api.md, "Fork and re-run from a
// checkpoint"): from a step of the State panel, "Re-run from here" (no edit) or "Edit and fork"
// (the channels as JSON in the state editor, StateEdit.tsx; only the channels that changed are
// sent); on the step a run is paused at, the editor also continues the run with the edit;
// the studio then opens the new run. A fork's run names where it came from, with a link to the
// origin run and to the compare view of the two.
import { useState } from 'react';
import type { RunDetail, Session } from '../../../../shared/playground.ts';
import type { SessionCheckpointDetail } from '../../../../shared/thread-state.ts';
import { ApiError, errorMessage } from '../../api/client.ts';
import { useForkRun } from '../../api/state.ts';
import { useRunPause } from '../../api/breakpoints.ts';
import { useRun } from '../../api/queries.ts';
import { StateEdit } from './StateEdit.tsx';
import { shortId } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';

export function ForkActions({ runId, detail }: { runId: string; detail: SessionCheckpointDetail }) {
  const fork = useForkRun();
  const selectRun = useUi((s) => s.selectRun);
  const setConflict = useUi((s) => s.setConflict);
  const setBlockingRun = useUi((s) => s.setBlockingRun);
  const [editing, setEditing] = useState(false);
  const run = useRun(runId).data;
  const pause = useRunPause(runId, run?.reason === 'breakpoint');
  // The run waits at this very checkpoint: an edit can go with Continue / Step.
  const pausedHere = pause.data?.state === 'paused' && pause.data.checkpoint_id === detail.checkpoint_id && !/\[.+\]$/.test(pause.data.node);
  if (!detail.next.length) return null; // nothing runs on from the end of a turn

  const start = async (values?: Record<string, unknown>) => {
    try {
      const r = await fork.mutateAsync({ runId, checkpointId: detail.checkpoint_id, checkpointNs: detail.checkpoint_ns, values });
      setBlockingRun(r.run_id);
      selectRun(r.session_id, r.run_id);
    } catch (err) {
      if (err instanceof ApiError && err.activeRunId) {
        setConflict({ activeRunId: err.activeRunId, message: err.message });
        setBlockingRun(err.activeRunId);
      }
    }
  };

  return (
    <div className="state__fork" data-testid="state-fork" data-paused-here={pausedHere || undefined}>
      <div className="actions" role="group" aria-label="Fork from this step">
        <button type="button" className="btn" disabled={fork.isPending} data-testid="rerun-from-here" onClick={() => void start()}>
          Re-run from here
        </button>
        <button type="button" className="btn" aria-expanded={editing} data-testid="edit-and-fork" onClick={() => setEditing(!editing)}>
          {pausedHere ? 'Edit state' : 'Edit and fork'}
        </button>
      </div>
      {editing && run ? (
        <StateEdit
          key={detail.checkpoint_id}
          runId={runId}
          sessionId={run.session_id}
          detail={detail}
          pausedHere={pausedHere}
          onFork={(values) => void start(values)}
          forking={fork.isPending}
          forkError={fork.error}
        />
      ) : !editing && fork.error ? (
        <p className="error small" role="alert" data-testid="fork-error">
          {errorMessage(fork.error)}
        </p>
      ) : null}
    </div>
  );
}

/** A subgraph's node as breakpoints name it (`inner:lookup`): the namespace `inner:<task>` names the subgraph. */
function insideOf(ns: string): string {
  const path = ns
    .split('|')
    .filter(Boolean)
    .map((part) => part.split(':')[0])
    .join(':');
  return path ? `${path}:` : '';
}

/** "Fork of <run>" in a fork's run header, with the compare view of the two. */
export function ForkLineage({ run }: { run: Pick<RunDetail, 'run_id' | 'fork'> }) {
  const selectRun = useUi((s) => s.selectRun);
  const openCompare = useUi((s) => s.openCompare);
  const fork = run.fork;
  if (!fork) return null;
  return (
    <span className="lineage" data-testid="fork-lineage">
      Fork of{' '}
      <button type="button" className="linkbtn" onClick={() => selectRun(fork.session_id, fork.run_id)} data-testid="fork-origin-link">
        {shortId(fork.run_id)}
      </button>
      {fork.node ? ` after ${insideOf(fork.checkpoint_ns)}${fork.node}` : ''}
      {fork.patch.length ? ` (edited ${fork.patch.map((p) => p.path.slice(1)).join(', ')})` : ' (re-run)'}{' '}
      <button type="button" className="linkbtn" onClick={() => openCompare(fork.run_id, run.run_id)} data-testid="fork-compare">
        compare
      </button>
    </span>
  );
}

/** The mark of a fork's session (docs/playground-api.md, "Fork and re-run from a checkpoint"). */
export function ForkMark({ session }: { session: Session }) {
  if (!session.forked_from_run_id) return null;
  return (
    <span className="pill session__imported" data-testid="session-fork" title={`Forked from run ${session.forked_from_run_id}`}>
      fork
    </span>
  );
}
