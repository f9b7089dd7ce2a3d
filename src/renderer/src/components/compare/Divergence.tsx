// Where the two runs parted: the first node whose status or state update differs, linked to
// its span in either run's timeline and to the graph; and the nodes that ran on one side only.
import type { Divergence, RunComparison, SpanRef } from '../../../../shared/compare.ts';
import { useUi } from '../../state/ui.ts';
import { showValue } from './DataDiff.tsx';

const WHY: Record<Divergence['kind'], string> = {
  update: 'wrote a different state update',
  status: 'ended differently',
  only_left: 'ran in the left run only',
  only_right: 'ran in the right run only',
};

function SpanLink({ run, span, side }: { run: RunComparison['left']; span: SpanRef; side: 'left' | 'right' }) {
  const showSpan = useUi((s) => s.showSpan);
  return (
    <button type="button" className="linkbtn" onClick={() => showSpan(run.session_id, run.run_id, span.span_id)} data-testid={`divergence-span-${side}`}>
      {side} timeline
    </button>
  );
}

export function DivergencePanel({ c }: { c: RunComparison }) {
  const selectRun = useUi((s) => s.selectRun);
  const setView = useUi((s) => s.setView);
  const selectNode = useUi((s) => s.selectNode);
  const d = c.divergence;
  if (!d.available)
    return (
      <p className="muted">
        No node spans on {c.left.status === 'queued' || c.right.status === 'queued' ? 'a run that has not started' : 'one side'} (spans are off with
        NODE_SPANS=off, and a run that never reached the agent has none).
      </p>
    );
  const first = d.first;
  const onGraph = (node: string) => {
    // The graph shows the right run's path; the top-level node is the one drawn there.
    selectRun(c.right.session_id, c.right.run_id);
    setView('graph');
    selectNode(node);
  };
  return (
    <div className="divergence" data-testid="divergence">
      {first ? (
        <>
          <p className="divergence__head" data-testid="divergence-first" data-node={first.node} data-kind={first.kind}>
            The runs part at node <strong>{first.path.join(' › ')}</strong> (step {first.step}): it {WHY[first.kind]}
            {first.kind === 'status' ? ` (${first.left?.status} → ${first.right?.status})` : ''}.
          </p>
          <p className="divergence__links">
            <button type="button" className="btn btn--small" onClick={() => onGraph(first.path[0])} data-testid="divergence-graph">
              Show on the graph
            </button>
            {first.left ? <SpanLink run={c.left} span={first.left} side="left" /> : null}
            {first.right ? <SpanLink run={c.right} span={first.right} side="right" /> : null}
          </p>
          {first.diff && first.diff.changes.length ? (
            <table className="table table--compact" data-testid="divergence-paths">
              <caption className="visually-hidden">State paths that differ at this node</caption>
              <thead>
                <tr>
                  <th scope="col">State path</th>
                  <th scope="col">Left</th>
                  <th scope="col">Right</th>
                </tr>
              </thead>
              <tbody>
                {first.diff.changes.slice(0, 50).map((ch) => (
                  <tr key={`${ch.op}${ch.path}`} data-testid="divergence-path" data-path={ch.path}>
                    <td>
                      <code>{ch.path}</code>
                    </td>
                    <td>
                      <code>{showValue(ch.old)}</code>
                    </td>
                    <td>
                      <code>{showValue(ch.new)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : (
        <p data-testid="divergence-none">
          Every node ran the same way: same nodes, same statuses, same state updates{c.options.ignore.length ? ' (outside the ignored paths)' : ''}.
        </p>
      )}
      {d.only_left.length || d.only_right.length ? (
        <p className="muted" data-testid="divergence-only">
          {d.only_left.length ? <>Left only: {d.only_left.map((s) => s.path.join(' › ')).join(', ')}. </> : null}
          {d.only_right.length ? <>Right only: {d.only_right.map((s) => s.path.join(' › ')).join(', ')}.</> : null}
        </p>
      ) : null}
      <p className="muted small">{d.same} node executions match.</p>
    </div>
  );
}
