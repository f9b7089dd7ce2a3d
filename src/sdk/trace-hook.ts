// The runtime's trace hook (docs/runtime-traces.md, "Node spans"; D-106): the runtime puts one
// object per turn in the run's configurable (LangGraph hands it down to every node and
// subgraph), and the SDK's emitTrace and fanOut call it directly, synchronously, where they
// run. A trace event or a branch therefore reaches the trace in the order it happened, between
// its node's `span.start` and `span.end`, with no trip through LangGraph's custom stream.
// Outside a runtime turn (no hook) emitTrace writes to the custom stream as before, and branches
// are not reported.

/** The configurable key of the turn's hook ("__"-prefixed: LangGraph copies no such key into a
 * checkpoint's or a run's metadata). */
export const TRACE_HOOK_KEY = '__agentStudioTraceHook';

/** A fan-out branch (or a call to another agent) as fanOut reports it. */
export interface BranchSignal {
  phase: 'start' | 'end';
  span_id: string;
  parent_span_id?: string;
  node: string;
  error?: unknown;
  aborted?: boolean;
  interrupted?: boolean;
}

export interface TraceHook {
  /** A trace event written by project code (emitTrace). */
  trace(name: string, fields: Record<string, unknown>): void;
  branch(signal: BranchSignal): void;
  /** false when nothing of the run keeps fan-out branches (their spans, the model calls counted
   * under them, recorded calls keyed by them): fanOut then reports none and runs its branches in
   * no branch context (D-114). */
  readonly branches?: boolean;
}

/** The turn's hook in a node's config, if the runtime runs the graph. */
export function traceHookOf(config: { configurable?: Record<string, unknown> } | undefined): TraceHook | undefined {
  const hook = config?.configurable?.[TRACE_HOOK_KEY] as TraceHook | undefined;
  return hook && typeof hook.trace === 'function' ? hook : undefined;
}
