// The agent graph (the runtime's /graph through the studio) laid out with elkjs and drawn
// as SVG. Nodes are buttons: `onNodeSelect` is the hook the source view uses.
import { useEffect, useState, type KeyboardEvent } from 'react';
import { errorMessage } from '../../api/client.ts';
import { useAgentGraph } from '../../api/queries.ts';
import type { GraphNode } from '../../../../shared/graph-view.ts';
import { edgePath, layoutGraph, type GraphLayout } from '../../lib/graphLayout.ts';
import { EmptyState } from '../EmptyState.tsx';
import type { NodeVisit } from '../../../../shared/spans.ts';

/** A run drawn over the graph: the nodes it ran (in order, with counts), and whether it ended. */
export interface RunOverlay {
  runId: string;
  path: Map<string, NodeVisit>;
  ended: boolean;
}

function visitClass(visit: NodeVisit | undefined, overlay: RunOverlay | undefined): string {
  if (!overlay) return '';
  if (!visit) return overlay.ended ? ' is-unreached' : ' is-pending';
  return ` is-${visit.status === 'completed' ? 'ran' : visit.status}`;
}

function visitLabel(visit: NodeVisit | undefined, overlay: RunOverlay | undefined): string {
  if (!overlay) return '';
  if (!visit) return overlay.ended ? ', not reached in this run' : ', not reached yet';
  const times = visit.count > 1 ? `, ran ${visit.count} times` : '';
  return `, step ${visit.order} of the run${times}, ${visit.status === 'completed' ? 'done' : visit.status}`;
}

export function GraphView({
  selectedNodeId,
  onNodeSelect,
  overlay,
  breakpoints,
}: {
  selectedNodeId: string | null;
  onNodeSelect: (node: GraphNode) => void;
  overlay?: RunOverlay;
  /** The session's breakpoints by node id ("before", "after", or both), marked on their nodes. */
  breakpoints?: Map<string, string>;
}) {
  const graph = useAgentGraph();
  const [layout, setLayout] = useState<GraphLayout | null>(null);
  const [layoutError, setLayoutError] = useState<string | null>(null);

  useEffect(() => {
    if (!graph.data) return;
    let stale = false;
    layoutGraph(graph.data)
      .then((l) => !stale && setLayout(l))
      .catch((err) => !stale && setLayoutError(errorMessage(err)));
    return () => {
      stale = true;
    };
  }, [graph.data]);

  if (graph.isPending) return <div className="graphview__loading">Loading the agent graph…</div>;
  if (graph.isError) {
    return (
      <EmptyState icon="graph" title="The graph is not available" testId="graph-error">
        <p>The studio could not fetch the runtime’s graph: {errorMessage(graph.error)}</p>
        <p>Is the runtime running? Send a message to start it, then reload this view.</p>
        <button type="button" className="btn" onClick={() => graph.refetch()}>
          Try again
        </button>
      </EmptyState>
    );
  }
  if (layoutError) return <p className="field-error">Could not lay out the graph: {layoutError}</p>;
  if (!layout) return <div className="graphview__loading">Laying out…</div>;

  const select = (n: GraphNode) => onNodeSelect(n);
  const onKey = (e: KeyboardEvent, n: GraphNode) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      select(n);
    }
  };

  return (
    <div className="graphview" data-testid="graph-view" data-overlay-run={overlay?.runId}>
      <svg
        className="graph"
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        width={layout.width}
        height={layout.height}
        role="group"
        aria-label={`Graph of ${graph.data.agent ?? 'the agent'}: ${layout.nodes.length} nodes, ${layout.edges.length} edges`}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" className="graph__arrow" />
          </marker>
        </defs>
        {layout.edges.map((e) => (
          <g
            key={e.id}
            className={`graph__edge${e.conditional ? ' graph__edge--conditional' : ''}`}
            data-testid="graph-edge"
            data-source={e.source}
            data-target={e.target}
          >
            <path d={edgePath(e.points)} markerEnd="url(#arrow)" />
            {e.labelBox ? (
              <text x={e.labelBox.x + e.labelBox.width / 2} y={e.labelBox.y + e.labelBox.height / 2} className="graph__edgelabel">
                {e.label}
              </text>
            ) : null}
          </g>
        ))}
        {layout.nodes.map((n) => {
          const selected = n.id === selectedNodeId;
          const clickable = n.kind === 'node';
          const visit = clickable ? overlay?.path.get(n.id) : undefined;
          return (
            <g
              key={n.id}
              className={`graph__node graph__node--${n.kind}${n.exit ? ' graph__node--exit' : ''}${selected ? ' is-selected' : ''}${clickable ? visitClass(visit, overlay) : ''}`}
              transform={`translate(${n.x},${n.y})`}
              role={clickable ? 'button' : 'img'}
              tabIndex={clickable ? 0 : undefined}
              aria-pressed={clickable ? selected : undefined}
              aria-label={`${n.kind === 'node' ? 'Node' : ''} ${n.label}${n.exit ? ' (exit node: its output streams)' : ''}${clickable ? visitLabel(visit, overlay) : ''}`.trim()}
              onClick={clickable ? () => select(n) : undefined}
              onKeyDown={clickable ? (e) => onKey(e, n) : undefined}
              data-testid="graph-node"
              data-node-id={n.id}
              data-run-state={overlay && clickable ? (visit ? visit.status : overlay.ended ? 'unreached' : 'pending') : undefined}
              data-run-count={visit?.count}
              data-breakpoint={breakpoints?.get(n.id)}
            >
              <rect width={n.width} height={n.height} rx={n.kind === 'node' ? 8 : n.height / 2} />
              <text x={n.width / 2} y={n.height / 2} className="graph__label">
                {n.label}
              </text>
              {n.exit ? (
                <text x={n.width - 8} y={11} className="graph__badge" aria-hidden="true">
                  exit
                </text>
              ) : null}
              {breakpoints?.has(n.id) ? <circle cx={0} cy={n.height / 2} r={5} className="graph__breakpoint" aria-hidden="true" /> : null}
              {visit ? (
                <text x={8} y={11} className="graph__order" aria-hidden="true" data-testid="graph-node-order">
                  {visit.order}
                  {visit.count > 1 ? ` ×${visit.count}` : ''}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <p className="graph__legend muted">
        <span className="legend legend--solid" /> edge <span className="legend legend--dashed" /> conditional edge · <strong>exit</strong> marks the node whose
        output streams
        {overlay ? (
          <>
            {' '}
            · run <code>{overlay.runId.slice(-8)}</code>: <span className="legend legend--ran" /> ran (numbered in order, ×N for loops){' '}
            <span className="legend legend--running" /> running <span className="legend legend--failed" /> failed <span className="legend legend--unreached" />{' '}
            not reached
          </>
        ) : (
          ' · choose a run in the sidebar to see its path'
        )}
      </p>
    </div>
  );
}
