// GET /graph: the compiled graph's nodes and edges, conditional edges and the exit node marked,
// and each compiled subgraph that is a node of it, drawn inside that node (`subgraphs`, node ids
// `inner:lookup` as LangGraph's xray names them and breakpoints name them).
import type { Generation } from './registry.ts';
import type { GraphEdge, GraphNode, GraphView, SubgraphView } from '../../../shared/graph-view.ts';
import { subgraphsOf } from '../execution/subgraphs.ts';
import { SUBGRAPH_NODE_SEPARATOR as SEP } from '../../../shared/breakpoints.ts';

interface Drawable {
  getGraphAsync(): Promise<{
    nodes: Record<string, { id: string; name?: string }>;
    edges: { source: string; target: string; conditional?: boolean; data?: unknown }[];
  }>;
}

async function draw(graph: Drawable, exitNode: string | null, prefix = ''): Promise<{ nodes: GraphNode[]; edges: GraphEdge[] }> {
  const drawn = await graph.getGraphAsync();
  const id = (raw: string) => (prefix ? `${prefix}${SEP}${raw}` : raw);
  const nodes = Object.values(drawn.nodes).map((n) => {
    const kind = n.id === '__start__' ? 'start' : n.id === '__end__' ? 'end' : 'node';
    return { id: id(n.id), label: kind === 'start' ? 'START' : kind === 'end' ? 'END' : (n.name ?? n.id), kind, exit: !prefix && n.id === exitNode } as const;
  });
  const edges = drawn.edges.map((e) => ({
    source: id(e.source),
    target: id(e.target),
    conditional: Boolean(e.conditional),
    ...(typeof e.data === 'string' && e.data ? { label: e.data } : {}),
  }));
  return { nodes, edges };
}

export async function describeGraph(gen: Generation): Promise<GraphView> {
  const { nodes, edges } = await draw(gen.graph as unknown as Drawable, gen.exitNode);
  const subgraphs: SubgraphView[] = [];
  for (const [path, sub] of subgraphsOf(gen.graph)) subgraphs.push({ node: path, ...(await draw(sub as unknown as Drawable, null, path)) });
  return { agent: gen.project.manifest.name, generation: gen.number, exit_node: gen.exitNode, nodes, edges, subgraphs };
}
