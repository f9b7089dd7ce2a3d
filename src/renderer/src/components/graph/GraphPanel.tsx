// The Graph tab: the agent's graph with the selected run's path live on it, the selected
// node's edges, and a compact composer to send a run and watch it here (docs/studio-ui.md).
import type { GraphNode, GraphView as AgentGraph } from '../../../../shared/graph-view.ts';
import { buildSpans, graphPath } from '../../../../shared/spans.ts';
import { isActive } from '../../../../shared/playground.ts';
import { useAgentGraph, useCreateSession } from '../../api/queries.ts';
import { useBreakpoints } from '../../api/breakpoints.ts';
import { runEndOf, useRunStream } from '../../hooks/useRunStream.ts';
import { useUi } from '../../state/ui.ts';
import { Composer } from '../composer/Composer.tsx';
import { BreakpointButtons, BreakpointList } from './BreakpointButtons.tsx';
import { GraphView, type RunOverlay } from './GraphView.tsx';
import { StateLinks } from '../run/StateLinks.tsx';
import { SubgraphNodes } from './SubgraphNodes.tsx';

/** The compact composer, in the selected session; without one, a button that starts one. */
function GraphComposer({ sessionId }: { sessionId: string | null }) {
  const create = useCreateSession();
  const selectSession = useUi((s) => s.selectSession);
  const setView = useUi((s) => s.setView);
  if (sessionId) return <Composer key={sessionId} sessionId={sessionId} compact />;
  return (
    <div className="graph-panel__start" data-testid="graph-no-session">
      <p className="muted">Start a session to send a message from here and watch the run on the graph.</p>
      <button
        type="button"
        className="btn btn--small btn--primary"
        disabled={create.isPending}
        onClick={async () => {
          selectSession((await create.mutateAsync(undefined)).session_id);
          setView('graph');
        }}
        data-testid="graph-new-session"
      >
        + New session
      </button>
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

function NodeDetails({ node, graph, sessionId, run }: { node: GraphNode; graph: AgentGraph; sessionId: string | null; run?: RunOverlay }) {
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
      {sessionId && run && node.kind === 'node' ? <StateLinks sessionId={sessionId} runId={run.runId} node={node.id} ended={run.ended} before /> : null}
      {sessionId ? <BreakpointButtons sessionId={sessionId} node={node.id} /> : null}
      <SubgraphNodes node={node.id} graph={graph} sessionId={sessionId} />
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

/** The graph, the selected node, and a compact composer: a run sent from here is watched
 * live on the graph (its path drawn as it goes). */
export function GraphPanel({ sessionId }: { sessionId: string | null }) {
  const selectedNodeId = useUi((s) => s.selectedNodeId);
  const selectNode = useUi((s) => s.selectNode);
  const runId = useUi((s) => s.runId);
  const graph = useAgentGraph();
  const overlay = useRunOverlay(runId);
  const breakpoints = useBreakpoints(sessionId).data ?? [];
  const marks = new Map<string, string>();
  for (const b of breakpoints) marks.set(b.node, marks.has(b.node) ? 'both' : b.when);
  const node = graph.data?.nodes.find((n) => n.id === selectedNodeId) ?? null;
  const onNodeSelect = (n: GraphNode) => selectNode(n.id);
  return (
    <div className="graph-panel">
      <div className="graph-panel__canvas">
        <GraphView selectedNodeId={selectedNodeId} onNodeSelect={onNodeSelect} overlay={overlay} breakpoints={marks} />
      </div>
      <aside className="graph-panel__side" aria-label="Selected node and composer">
        {node && graph.data ? (
          <NodeDetails node={node} graph={graph.data} sessionId={sessionId} run={overlay} />
        ) : (
          <p className="muted">Select a node: “Go to source” opens its function.</p>
        )}
        {sessionId ? (
          <>
            <BreakpointButtons sessionId={sessionId} node="*" />
            <BreakpointList sessionId={sessionId} />
          </>
        ) : null}
        <GraphComposer sessionId={sessionId} />
      </aside>
    </div>
  );
}
