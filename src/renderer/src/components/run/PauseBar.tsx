// A run paused at a breakpoint (docs/playground-api.md, "Breakpoints and stepping"): where it
// paused, and Continue, Step and Stop. Continue and Step start a child run, which is selected.
import type { RunDetail } from '../../../../shared/playground.ts';
import { usePauseAction, useRunPause } from '../../api/breakpoints.ts';
import { errorMessage } from '../../api/client.ts';
import { baseNode } from '../../lib/checkpoint-nav.ts';
import { useUi } from '../../state/ui.ts';

export function PauseBar({ run }: { run: RunDetail }) {
  const pause = useRunPause(run.run_id, true);
  const action = usePauseAction(run.run_id);
  const selectRun = useUi((s) => s.selectRun);
  const openSource = useUi((s) => s.openSource);
  const openState = useUi((s) => s.openState);
  const p = pause.data;
  if (!p) return null;
  const act = async (a: 'continue' | 'step' | 'stop') => {
    const reply = await action.mutateAsync(a);
    if (reply.accepted) selectRun(run.session_id, reply.accepted.run_id);
  };
  return (
    <div
      className="pausebar"
      role="region"
      aria-label="Paused at a breakpoint"
      data-testid="pause-bar"
      data-node={p.node}
      data-when={p.when}
      data-state={p.state}
    >
      <p>
        {p.state === 'paused' ? 'Paused' : p.state === 'stopped' ? 'Stopped' : 'Was paused'} <strong>{p.when}</strong> <code>{p.node}</code>{' '}
        {/* The node's function, with the pause line highlighted there (source/breakpointGutter.ts). */}
        <button type="button" className="btn btn--small" onClick={() => openSource({ node: baseNode(p.node) })} data-testid="pause-show-source">
          Show in source
        </button>
        {p.checkpoint_id ? (
          <button
            type="button"
            className="btn btn--small"
            onClick={() => openState(run.session_id, run.run_id, p.checkpoint_id!)}
            data-testid="pause-show-state"
          >
            State here
          </button>
        ) : null}
        {p.state === 'continued' && p.continued_by ? (
          <>
            {' '}
            · continued by{' '}
            <button type="button" className="btn btn--small" onClick={() => selectRun(run.session_id, p.continued_by)}>
              <code>{p.continued_by}</code>
            </button>
          </>
        ) : null}
      </p>
      {p.state === 'paused' ? (
        <div className="pausebar__actions">
          <button type="button" className="btn btn--primary" disabled={action.isPending} onClick={() => void act('continue')} data-testid="pause-continue">
            Continue
          </button>
          <button type="button" className="btn" disabled={action.isPending} onClick={() => void act('step')} data-testid="pause-step">
            Step
          </button>
          <button type="button" className="btn btn--danger" disabled={action.isPending} onClick={() => void act('stop')} data-testid="pause-stop">
            Stop
          </button>
        </div>
      ) : null}
      {action.error ? <p className="error small">{errorMessage(action.error)}</p> : null}
    </div>
  );
}
