// Boundary: runtime child -> studio -> renderer. The compiled graph as the runtime's GET /graph
// draws it and the studio's GET /api/playground/v1/graph passes it on unchanged
// (docs/playground-api.md): nodes, edges, conditional edges and the exit node marked.
import { z } from 'zod';

export const GraphNodeSchema = z.object({
  id: z.string(),
  label: z.string(),
  kind: z.enum(['start', 'end', 'node']),
  /** The project's exit node (its output is the run's output). */
  exit: z.boolean(),
});
export type GraphNode = z.infer<typeof GraphNodeSchema>;

export const GraphEdgeSchema = z.object({
  source: z.string(),
  target: z.string(),
  conditional: z.boolean(),
  /** A conditional edge's branch name, when the graph gives one. */
  label: z.string().optional(),
});
export type GraphEdge = z.infer<typeof GraphEdgeSchema>;

/** A subgraph drawn inside its node of the parent (LangGraph's xray): its nodes' ids are
 * `inner:lookup` (the node of the parent, then its own; a breakpoint names them so), its edges
 * run between those ids and its own `inner:__start__` / `inner:__end__`. */
export const SubgraphViewSchema = z.object({
  /** The parent's node that runs it (`inner`; `inner:deeper` for a subgraph inside a subgraph). */
  node: z.string(),
  nodes: z.array(GraphNodeSchema),
  edges: z.array(GraphEdgeSchema),
});
export type SubgraphView = z.infer<typeof SubgraphViewSchema>;

export const GraphViewSchema = z.object({
  agent: z.string(),
  /** The registry generation the graph was drawn from. */
  generation: z.number().int(),
  exit_node: z.string(),
  nodes: z.array(GraphNodeSchema),
  edges: z.array(GraphEdgeSchema),
  /** The compiled subgraphs that are nodes of the graph, outermost first (absent from older
   * runtimes; empty when the graph has none). */
  subgraphs: z.array(SubgraphViewSchema).optional(),
});
export type GraphView = z.infer<typeof GraphViewSchema>;
