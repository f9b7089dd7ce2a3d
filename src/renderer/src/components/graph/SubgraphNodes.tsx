// The nodes inside a subgraph, in the node details of the graph node that runs it (GET /graph's
// `subgraphs`, LangGraph's xray): each with its id as breakpoints name it (`inner:rank`) and its
// Pause before / Pause after toggles (docs/playground-api.md, "Breakpoints and stepping").
import type { GraphView as AgentGraph } from '../../../../shared/graph-view.ts';
import { BreakpointButtons } from './BreakpointButtons.tsx';

export function SubgraphNodes({ node, graph, sessionId }: { node: string; graph: AgentGraph; sessionId: string | null }) {
  const sub = graph.subgraphs?.find((s) => s.node === node);
  if (!sub) return null;
  const inner = sub.nodes.filter((n) => n.kind === 'node');
  return (
    <>
      <h3 className="subhead">Inside this subgraph</h3>
      <ul className="node-details__subgraph" data-testid="subgraph-nodes">
        {inner.map((n) => (
          <li key={n.id} data-testid="subgraph-node" data-node={n.id}>
            <code>{n.id}</code>
            {sessionId ? <BreakpointButtons sessionId={sessionId} node={n.id} /> : null}
          </li>
        ))}
      </ul>
    </>
  );
}
