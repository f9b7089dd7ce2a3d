// Lays out the agent graph with elkjs (layered, top to bottom), loaded on first use.
// elk.bundled runs in the page; the graphs of one agent are small enough for that.
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';
import type { GraphEdge, GraphNode, GraphView as AgentGraph } from '../../../shared/graph-view.ts';

export interface PlacedNode extends GraphNode {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface PlacedEdge extends GraphEdge {
  id: string;
  points: { x: number; y: number }[];
  labelBox?: { x: number; y: number; width: number; height: number };
}

export interface GraphLayout {
  width: number;
  height: number;
  nodes: PlacedNode[];
  edges: PlacedEdge[];
}

const CHAR_W = 7.4;
const LABEL_CHAR_W = 6.4;

function nodeSize(n: GraphNode): { width: number; height: number } {
  if (n.kind !== 'node') return { width: Math.max(64, n.label.length * CHAR_W + 28), height: 30 };
  return { width: Math.max(112, n.label.length * CHAR_W + 40), height: 44 };
}

let elkPromise: Promise<{ layout(g: ElkNode): Promise<ElkNode> }> | null = null;
function elk() {
  elkPromise ??= import('elkjs/lib/elk.bundled.js').then((m) => new m.default());
  return elkPromise;
}

export async function layoutGraph(graph: AgentGraph): Promise<GraphLayout> {
  const edges: ElkExtendedEdge[] = graph.edges.map((e, i) => ({
    id: `e${i}`,
    sources: [e.source],
    targets: [e.target],
    labels: e.label ? [{ text: e.label, width: e.label.length * LABEL_CHAR_W + 10, height: 18 }] : [],
  }));
  const root: ElkNode = {
    id: 'root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': 'DOWN',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.layered.spacing.nodeNodeBetweenLayers': '44',
      'elk.spacing.nodeNode': '36',
      'elk.spacing.edgeLabel': '4',
      'elk.edgeLabels.inline': 'false',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.padding': '[top=16,left=16,bottom=16,right=16]',
    },
    children: graph.nodes.map((n) => ({ id: n.id, ...nodeSize(n) })),
    edges,
  };
  const out = await (await elk()).layout(root);
  const byId = new Map(graph.nodes.map((n) => [n.id, n]));
  const nodes: PlacedNode[] = (out.children ?? []).map((c) => ({ ...byId.get(c.id)!, x: c.x ?? 0, y: c.y ?? 0, width: c.width ?? 0, height: c.height ?? 0 }));
  const placedEdges: PlacedEdge[] = (out.edges ?? []).map((e, i) => {
    const src = graph.edges[i];
    const ext = e as ElkExtendedEdge;
    const points = (ext.sections ?? []).flatMap((s) => [s.startPoint, ...(s.bendPoints ?? []), s.endPoint]);
    const l = ext.labels?.[0];
    return {
      ...src,
      id: ext.id,
      points,
      labelBox: l && l.x !== undefined && l.y !== undefined ? { x: l.x, y: l.y, width: l.width ?? 0, height: l.height ?? 0 } : undefined,
    };
  });
  return { width: out.width ?? 0, height: out.height ?? 0, nodes, edges: placedEdges };
}

/** An orthogonal polyline with softly rounded corners. */
export function edgePath(points: { x: number; y: number }[], radius = 6): string {
  if (points.length === 0) return '';
  let d = `M ${points[0].x} ${points[0].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const p = points[i];
    const prev = points[i - 1];
    const next = points[i + 1];
    const r = Math.min(radius, Math.hypot(p.x - prev.x, p.y - prev.y) / 2, Math.hypot(next.x - p.x, next.y - p.y) / 2);
    const a = { x: p.x - Math.sign(p.x - prev.x) * r, y: p.y - Math.sign(p.y - prev.y) * r };
    const b = { x: p.x + Math.sign(next.x - p.x) * r, y: p.y + Math.sign(next.y - p.y) * r };
    d += ` L ${a.x} ${a.y} Q ${p.x} ${p.y} ${b.x} ${b.y}`;
  }
  const last = points[points.length - 1];
  return `${d} L ${last.x} ${last.y}`;
}
