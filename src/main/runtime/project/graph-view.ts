// GET /graph: the compiled graph's nodes and edges, conditional edges and the exit node marked.
import type { Generation } from './registry.ts';
import type { GraphView } from '../../../shared/graph-view.ts';

export async function describeGraph(gen: Generation): Promise<GraphView> {
  const drawn = await gen.graph.getGraphAsync();
  const nodes = Object.values(drawn.nodes).map((n) => {
    const kind = n.id === '__start__' ? 'start' : n.id === '__end__' ? 'end' : 'node';
    return { id: n.id, label: kind === 'start' ? 'START' : kind === 'end' ? 'END' : (n.name ?? n.id), kind, exit: n.id === gen.exitNode } as const;
  });
  const edges = drawn.edges.map((e) => ({
    source: e.source,
    target: e.target,
    conditional: Boolean(e.conditional),
    ...(typeof e.data === 'string' && e.data ? { label: e.data } : {}),
  }));
  return { agent: gen.project.manifest.name, generation: gen.number, exit_node: gen.exitNode, nodes, edges };
}
