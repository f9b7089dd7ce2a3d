// Breakpoints on nodes inside subgraphs (docs/playground-api.md, "Breakpoints and stepping").
// LangGraph's per-invocation interruptBefore / interruptAfter reach only the top graph: a
// subgraph invoked as a node reads its own compile-time lists. So each compiled subgraph of a
// loaded graph is armed once: its option defaults also read the run's subgraph breakpoints from
// the configurable (SUBGRAPH_BREAKPOINTS_KEY, which LangGraph hands down to every subgraph) and
// turn the ones naming its nodes into its static interrupts. A subgraph that stops there throws
// LangGraph's own nested interrupt: the checkpoint inside the subgraph is written, the parent
// ends with a pause, and a continue (null input) resumes the subgraph where it stopped.
// A subgraph node is named `inner:rank` (its node in the parent, then its own), as the graph
// view's xray draws it; its path is read from the task's checkpoint namespace (`inner:<task>`).
import { SUBGRAPH_NODE_SEPARATOR as SEP } from '../../../shared/breakpoints.ts';

/** The configurable key with a run's breakpoints on subgraph nodes. */
export const SUBGRAPH_BREAKPOINTS_KEY = '__agentStudioSubgraphBreakpoints';

export interface SubgraphBreakpoints {
  before: string[];
  after: string[];
  /** Step mode: pause before every node of every subgraph too. */
  step: boolean;
}

/** What a compiled graph (LangGraph's Pregel) shows of itself here. */
interface PregelLike {
  nodes?: Record<string, { bound?: unknown }>;
  _defaults?: (config: Record<string, unknown>) => unknown[];
}

const ARMED = Symbol.for('agent-studio.subgraph-breakpoints');

function isPregel(x: unknown): x is PregelLike {
  return !!x && typeof x === 'object' && typeof (x as PregelLike)._defaults === 'function' && typeof (x as PregelLike).nodes === 'object';
}

/** The compiled subgraphs that are nodes of `graph`, by their path (`inner`, `inner:deeper`). */
export function subgraphsOf(graph: unknown, prefix = ''): Map<string, PregelLike> {
  const out = new Map<string, PregelLike>();
  if (!isPregel(graph)) return out;
  for (const [name, node] of Object.entries(graph.nodes ?? {})) {
    if (!isPregel(node?.bound)) continue;
    const path = prefix ? `${prefix}${SEP}${name}` : name;
    out.set(path, node.bound);
    for (const [p, g] of subgraphsOf(node.bound, path)) out.set(p, g);
  }
  return out;
}

/** Every node id a breakpoint may name inside the graph's subgraphs: `inner:lookup`, ... */
export function subgraphNodeIds(graph: unknown): string[] {
  const ids: string[] = [];
  for (const [path, g] of subgraphsOf(graph)) for (const n of Object.keys(g.nodes ?? {})) if (!n.startsWith('__')) ids.push(`${path}${SEP}${n}`);
  return ids;
}

/** A subgraph's path from the checkpoint namespace it runs in: `inner:<task>|deeper:<task>` -> `inner:deeper`. */
export function pathOfNamespace(ns: string): string {
  return ns
    .split('|')
    .filter(Boolean)
    .map((part) => part.split(':')[0])
    .join(SEP);
}

/** Arms the graph's subgraphs (once per compiled subgraph): their static interrupts follow the
 * run's subgraph breakpoints. A run without them, or a caller's explicit lists, are left alone. */
export function armSubgraphs(graph: unknown): void {
  for (const sub of subgraphsOf(graph).values()) {
    const target = sub as PregelLike & { [ARMED]?: true };
    if (target[ARMED]) continue;
    const original = target._defaults!.bind(target);
    const own = Object.keys(target.nodes ?? {}).filter((n) => !n.startsWith('__'));
    target._defaults = (config: Record<string, unknown>) => {
      const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
      const bps = configurable[SUBGRAPH_BREAKPOINTS_KEY] as SubgraphBreakpoints | undefined;
      const ns = configurable.checkpoint_ns;
      if (!bps || typeof ns !== 'string' || !ns || config.interruptBefore !== undefined || config.interruptAfter !== undefined) return original(config);
      const path = pathOfNamespace(ns);
      const named = (list: string[]) => own.filter((n) => list.includes(`${path}${SEP}${n}`));
      const before = bps.step ? '*' : named(bps.before);
      const after = named(bps.after);
      return original({ ...config, ...(before.length ? { interruptBefore: before } : {}), ...(after.length ? { interruptAfter: after } : {}) });
    };
    Object.defineProperty(target, ARMED, { value: true });
  }
}
