// Node spans from the nodes themselves (docs/runtime-traces.md, "Node spans"; D-106): every
// node of a loaded graph, and of the compiled subgraphs that are its nodes (to any depth), is
// wrapped once at its runnable's `invoke`, the call LangGraph makes for each task. In a runtime
// turn the run's configurable holds the turn's span hook (TRACE_HOOK_KEY, the SpanTracker of
// spans.ts), and the wrapper tells it, synchronously, when the task starts and how it ended (its
// result, or what it threw): no `tasks` stream mode, no stream chunk per task. Outside a turn (no
// hook) the wrapper only calls through.
import { TRACE_HOOK_KEY } from '../../../sdk/trace-hook.ts';

/** What a node wrapper tells the turn's hook. */
export interface NodeSpanHook {
  /** The task of node `node` starts; answers what its end hands back (null: nothing kept). */
  nodeStart(node: string, config: NodeConfig): unknown;
  /** The task ended with its result, or threw `error` (`threw` true). */
  nodeEnd(handle: unknown, result: unknown, error: unknown, threw: boolean): void;
}

/** The parts of a task's config the spans read (LangGraph's task metadata and configurable). */
export interface NodeConfig {
  metadata?: { langgraph_checkpoint_ns?: unknown; langgraph_step?: unknown; langgraph_path?: unknown };
  configurable?: Record<string, unknown>;
  signal?: AbortSignal;
}

interface InvokeLike {
  invoke?: (input: unknown, config?: NodeConfig) => Promise<unknown>;
  [WRAPPED]?: true;
}

interface GraphLike {
  nodes?: Record<string, { bound?: InvokeLike }>;
}

const WRAPPED = Symbol.for('agent-studio.node-span');

function isCompiledGraph(x: unknown): x is GraphLike {
  return !!x && typeof x === 'object' && typeof (x as GraphLike).nodes === 'object' && typeof (x as { _defaults?: unknown })._defaults === 'function';
}

/** Wraps every node of the compiled `graph` and of its subgraph nodes (once per runnable). */
export function instrumentSpans(graph: unknown): void {
  if (!isCompiledGraph(graph)) return;
  for (const [name, node] of Object.entries(graph.nodes ?? {})) {
    const bound = node?.bound;
    if (name.startsWith('__') || !bound || typeof bound.invoke !== 'function') continue;
    if (isCompiledGraph(bound)) instrumentSpans(bound);
    if (bound[WRAPPED]) continue;
    const original = bound.invoke;
    bound.invoke = function (this: unknown, input: unknown, config?: NodeConfig) {
      const hook = config?.configurable?.[TRACE_HOOK_KEY] as Partial<NodeSpanHook> | undefined;
      const handle = hook?.nodeStart ? hook.nodeStart(name, config!) : null;
      if (handle === null || handle === undefined) return original.call(this, input, config);
      let out: Promise<unknown>;
      try {
        out = original.call(this, input, config);
      } catch (err) {
        hook!.nodeEnd!(handle, undefined, err, true);
        throw err;
      }
      return out.then(
        (result) => {
          hook!.nodeEnd!(handle, result, undefined, false);
          return result;
        },
        (err: unknown) => {
          hook!.nodeEnd!(handle, undefined, err, true);
          throw err;
        },
      );
    };
    Object.defineProperty(bound, WRAPPED, { value: true });
  }
}
