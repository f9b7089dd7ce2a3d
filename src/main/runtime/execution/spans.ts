// Node spans (docs/runtime-traces.md): one `span.start` and one `span.end` trace event per
// node execution of an invocation, told by the node wrappers (node-spans.ts) as each task starts
// and ends, plus the fan-out branches the SDK's fanOut reports and the trace events project
// code writes (emitTrace), all through this one per-turn hook, called synchronously where they
// happen (the run's configurable, TRACE_HOOK_KEY; D-106): a node's trace events, model calls
// and branches come between its span's start and end. It also keeps each node's latency
// (STAGE_TIMING).
import { isCommand, isGraphInterrupt, isParentCommand } from '@langchain/langgraph';
import type { BranchSignal, TraceHook } from '../../../sdk/trace-hook.ts';
import { traceValue } from '../observability/trace-value.ts';
import { sourceOf, type SourcePosition } from '../project/node-failures.ts';
import { toAgentError } from './errors.ts';
import type { NodeConfig, NodeSpanHook } from './node-spans.ts';
import { isSendTask, sendBranch } from './send-gates.ts';

type Emit = (name: string, fields: Record<string, unknown>) => void;

export type SpanStatus = 'completed' | 'interrupted' | 'failed' | 'cancelled';
export type SpanKind = 'node' | 'branch';
export type { BranchSignal } from '../../../sdk/trace-hook.ts';

interface OpenSpan {
  id: string;
  /** The span's name: the node's, or `node[index]` for a task a Send started (D-83). */
  node: string;
  /** LangGraph's node name (the latency's key). */
  name: string;
  kind: SpanKind;
  parent: string | undefined;
  step: number;
  t0: number;
  /** A task of the top graph (its latency counts). */
  root: boolean;
  signal?: AbortSignal;
}

/** A failure as a span (and the task's failure DataPart) shows it: words, code, position. */
export interface SpanError {
  message: string;
  errorCode: string;
  source?: SourcePosition;
}

export interface SpanOptions {
  /** Someone receives spans (else none is described; NODE_SPANS=off too). */
  enabled?: boolean;
  /** Whether anyone reads a span's values (`update`, `interrupts`): copying them costs CPU. */
  values?: boolean;
  /** Filled with milliseconds per node of the top graph (STAGE_TIMING), when given. */
  latency?: Record<string, number> | null;
  /** Someone keeps what fan-out branches carry (TraceHook.branches; default yes). */
  branches?: boolean;
}

export class SpanTracker implements NodeSpanHook, TraceHook {
  private readonly open = new Map<string, OpenSpan>();
  /** Per graph namespace ('' for the top graph): LangGraph's step of its last task, and the
   * supersteps of this invocation so far (a span's `step` counts from 1 in each invocation). */
  private readonly steps = new Map<string, { at: unknown; n: number }>();
  private readonly enabled: boolean;
  readonly branches: boolean;
  private readonly values: boolean;
  private readonly latency: Record<string, number> | null;

  constructor(
    private readonly emit: Emit,
    private readonly projectDir: string,
    options: SpanOptions = {},
  ) {
    this.enabled = options.enabled ?? true;
    this.branches = options.branches ?? true;
    this.values = this.enabled && (options.values ?? true);
    this.latency = options.latency ?? null;
  }

  /** A trace event project code wrote (emitTrace). */
  trace(name: string, fields: Record<string, unknown>): void {
    this.emit(name, fields);
  }

  /** A task of node `name` starts (node-spans.ts); null when nothing is kept of it. */
  nodeStart(name: string, config: NodeConfig): OpenSpan | null {
    if (!this.enabled && !this.latency) return null;
    const md = config.metadata ?? {};
    // The task's checkpoint namespace: `node:<task>`, inside a subgraph `inner:<task>|node:<task>`.
    const ns = typeof md.langgraph_checkpoint_ns === 'string' ? md.langgraph_checkpoint_ns : '';
    const cut = ns.lastIndexOf('|');
    const graphNs = cut < 0 ? '' : ns.slice(0, cut);
    const taskId = config.configurable?.__pregel_task_id;
    const id = typeof taskId === 'string' ? taskId : ns.slice(ns.lastIndexOf(':') + 1);
    let step = this.steps.get(graphNs);
    if (!step) this.steps.set(graphNs, (step = { at: md.langgraph_step, n: 1 }));
    else if (step.at !== md.langgraph_step) {
      step.at = md.langgraph_step;
      step.n += 1;
    }
    // A Send task of the top graph is a branch named by its place among the step's Sends (D-83).
    const send = !graphNs && isSendTask(config) ? sendBranch(name, config as Parameters<typeof sendBranch>[1]) : null;
    const span: OpenSpan = {
      id,
      node: send?.label ?? name,
      name,
      kind: send ? 'branch' : 'node',
      // A subgraph's tasks are children of the task that runs the subgraph.
      parent: graphNs ? graphNs.slice(graphNs.lastIndexOf(':') + 1) : undefined,
      step: step.n,
      t0: performance.now(),
      root: !graphNs,
      signal: config.signal,
    };
    if (this.enabled) {
      this.open.set(id, span);
      this.emit('span.start', { span_id: id, ...(span.parent ? { parent_span_id: span.parent } : {}), kind: span.kind, node: span.node, step: span.step });
    }
    return span;
  }

  /** The task ended: with its result, or by throwing `error` (an interrupt, a failure, a cancel). */
  nodeEnd(handle: unknown, result: unknown, error: unknown, threw: boolean): void {
    const span = handle as OpenSpan;
    if (span.root && this.latency) this.latency[span.name] = Math.round((this.latency[span.name] ?? 0) + performance.now() - span.t0);
    if (!this.open.has(span.id)) return; // not described, or already closed by the invocation's end
    if (!threw) return this.finish(span.id, 'completed', this.values ? { update: traceValue(updateOf(result)) } : {});
    if (isGraphInterrupt(error)) {
      const asked = (error.interrupts ?? []).map((i) => (i as { value?: unknown })?.value ?? i);
      return this.finish(span.id, 'interrupted', this.values ? { interrupts: traceValue(asked) } : {});
    }
    // A Command to the parent graph is how the node ended, not a failure.
    if (isParentCommand(error)) return this.finish(span.id, 'completed', this.values ? { update: traceValue(updateOf(error.command)) } : {});
    this.finish(span.id, span.signal?.aborted ? 'cancelled' : 'failed', { error });
  }

  /** A fan-out branch (the SDK's fanOut) or a call to another agent. */
  branch(signal: BranchSignal): void {
    if (!this.enabled) return;
    if (signal.phase === 'start') {
      const parent = signal.parent_span_id ? this.open.get(signal.parent_span_id) : undefined;
      const span: OpenSpan = {
        id: signal.span_id,
        node: signal.node,
        name: signal.node,
        kind: 'branch',
        parent: signal.parent_span_id,
        step: parent?.step ?? 1,
        t0: performance.now(),
        root: false,
      };
      this.open.set(span.id, span);
      this.emit('span.start', { span_id: span.id, ...(span.parent ? { parent_span_id: span.parent } : {}), kind: 'branch', node: span.node, step: span.step });
    } else if (signal.interrupted) {
      this.finish(signal.span_id, 'interrupted', {});
    } else if (signal.error !== undefined) {
      this.finish(signal.span_id, signal.aborted ? 'cancelled' : 'failed', { error: signal.error });
    } else {
      this.finish(signal.span_id, 'completed', {});
    }
  }

  /** The invocation failed: the node and branch that threw have ended failed already (their
   * wrappers told it before LangGraph rethrew); every span still open ends cancelled. */
  failWith(_error: unknown): void {
    this.closeAll();
  }

  /** Ends every span still open as cancelled: the invocation was cancelled, or a failure
   * elsewhere cut it off (the failing node's own span ends `failed`). */
  closeAll(): void {
    for (const id of [...this.open.keys()].reverse()) this.finish(id, 'cancelled', {});
  }

  /** How a failure reads in a span and in the task's DataPart. */
  describe(error: unknown): SpanError {
    const source = sourceOf(error, this.projectDir);
    const message =
      error instanceof Error
        ? error.name && error.name !== 'Error' && error.name !== 'AgentError'
          ? `${error.name}: ${error.message}`
          : error.message
        : String(error);
    return { message, errorCode: toAgentError(error).code, ...(source ? { source } : {}) };
  }

  private finish(id: string, status: SpanStatus, extra: { update?: unknown; interrupts?: unknown; error?: unknown }): void {
    const span = this.open.get(id);
    if (!span) return;
    this.open.delete(id);
    const { error, ...rest } = extra;
    this.emit('span.end', {
      span_id: id,
      ...(span.parent ? { parent_span_id: span.parent } : {}),
      kind: span.kind,
      node: span.node,
      step: span.step,
      status,
      duration_ms: Math.round((performance.now() - span.t0) * 10) / 10,
      ...rest,
      ...(error !== undefined ? { error: this.describe(error), stack: stackOf(error) } : {}),
    });
  }
}

/** A node's update as its span shows it: what it returned (a Command's `update`). */
function updateOf(result: unknown): unknown {
  if (isCommand(result)) return (result as { update?: unknown }).update ?? {};
  return result ?? {};
}

function stackOf(error: unknown): string | undefined {
  const stack = (error as { stack?: unknown } | null)?.stack;
  return typeof stack === 'string' ? stack.split('\n').slice(0, 12).join('\n') : undefined;
}
