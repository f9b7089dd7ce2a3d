// Links from a node's execution to the state at its step (docs/studio-ui.md, "The state at a
// step"): a span of the run's waterfall opens the checkpoint its node's step wrote, a node of
// the graph view the state before or after it in the selected run, each in the run's State
// panel (lib/checkpoint-nav.ts says which checkpoint).
import { useRunCheckpoints } from '../../api/state.ts';
import { checkpointAfter, checkpointBefore } from '../../lib/checkpoint-nav.ts';
import { useUi } from '../../state/ui.ts';

interface Props {
  sessionId: string;
  runId: string;
  node: string;
  /** Which time the node ran in the run (0-based). */
  occurrence?: number;
  /** The run has ended (its checkpoints are all written). */
  ended: boolean;
  /** Also offer the state before the node. */
  before?: boolean;
}

export function StateLinks({ sessionId, runId, node, occurrence = 0, ended, before = false }: Props) {
  const list = useRunCheckpoints(runId, ended);
  const openState = useUi((s) => s.openState);
  if (!ended || !list.data) return null;
  const after = checkpointAfter(list.data, node, occurrence);
  const prior = before ? checkpointBefore(list.data, node, occurrence) : null;
  if (!after && !prior)
    return before ? (
      <p className="muted small" data-testid="state-links-none">
        It did not run in the selected run.
      </p>
    ) : null;
  return (
    <span className="state-links" role="group" aria-label={`State at ${node}`}>
      {prior ? (
        <button
          type="button"
          className="btn btn--small"
          data-testid="state-before"
          data-checkpoint-id={prior}
          onClick={() => openState(sessionId, runId, prior)}
        >
          State before
        </button>
      ) : null}
      {after ? (
        <button
          type="button"
          className="btn btn--small"
          data-testid="state-after"
          data-checkpoint-id={after.checkpoint_id}
          title="The state its step wrote, in the run's State panel"
          onClick={() => openState(sessionId, runId, after.checkpoint_id)}
        >
          State after
        </button>
      ) : null}
    </span>
  );
}
