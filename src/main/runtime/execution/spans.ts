// Node spans (docs/runtime-traces.md): one `span.start` and one `span.end` trace event per
// node execution of an invocation, built from the `tasks` stream mode LangGraph emits anyway
// (no callback on every runnable), plus the fan-out branches the SDK's fanOut reports and
// the node failures instrumentNodes reports, on the custom stream.
import { traceValue } from '../observability/trace-value.ts';
import { failureOf, sourceOf, type SourcePosition } from '../project/node-failures.ts';
import { toAgentError } from './errors.ts';

type Emit = (name: string, fields: Record<string, unknown>) => void;

/** LangGraph's trigger of a task a Send started. */
const PUSH = '__pregel_push';

export type SpanStatus = 'completed' | 'interrupted' | 'failed' | 'cancelled';
export type SpanKind = 'node' | 'branch';

interface OpenSpan {
  node: string;
  /** A Send task's span waits for its branch name (send-gates.ts) before it starts. */
  deferred?: boolean;
  kind: SpanKind;
  parent: string | undefined;
  step: number;
  t0: number;
  failure?: { error: unknown; aborted: boolean };
}

/** A failure as a span (and the task's failure DataPart) shows it: words, code, position. */
export interface SpanError {
  message: string;
  errorCode: string;
  source?: SourcePosition;
}

/** What the SDK's fanOut writes on the custom stream for each branch. */
export interface BranchSignal {
  /** `label`: a Send task names its span (`span_id` is its task id) as a branch, `node[index]`. */
  phase: 'start' | 'end' | 'label';
  span_id: string;
  parent_span_id?: string;
  node: string;
  error?: unknown;
  aborted?: boolean;
  interrupted?: boolean;
}

export { BRANCH_SPAN_KEY as BRANCH_KEY } from '../../../sdk/fanout.ts';
import { FAILED_BRANCH } from '../../../sdk/fanout.ts';

export class SpanTracker {
  private readonly open = new Map<string, OpenSpan>();
  /** Supersteps so far and tasks running, per namespace ('' for the root graph). */
  private readonly steps = new Map<string, number>();
  private readonly running = new Map<string, number>();

  constructor(
    private readonly emit: Emit,
    private readonly projectDir: string,
    /** NODE_SPANS=off, or nobody receives spans: the tracker ignores everything. */
    private readonly enabled = true,
    /** Whether anyone reads a span's values (`update`, `interrupts`): copying them costs CPU. */
    private readonly values = true,
  ) {}

  /** A `tasks` stream item: a task start (has `input`) or its result. */
  task(namespace: string[], payload: { id: string; name: string; input?: unknown; result?: unknown; interrupts?: unknown[]; triggers?: unknown[] }): void {
    if (!this.enabled) return;
    const ns = namespace.join('|');
    if ('input' in payload) {
      const active = this.running.get(ns) ?? 0;
      if (active === 0) this.steps.set(ns, (this.steps.get(ns) ?? 0) + 1);
      this.running.set(ns, active + 1);
      // A subgraph's tasks are children of the task that runs the subgraph.
      const parent = namespace.length ? namespace[namespace.length - 1].split(':').pop() : undefined;
      // A Send task of the top graph is named by the node wrapper as it starts (D-83).
      const send = !namespace.length && payload.triggers?.includes(PUSH) === true;
      this.begin(payload.id, payload.name, 'node', parent, this.steps.get(ns) ?? 1, send);
      return;
    }
    this.running.set(ns, Math.max(0, (this.running.get(ns) ?? 1) - 1));
    const span = this.open.get(payload.id);
    if (!span) return;
    if (span.failure) return this.finish(payload.id, span.failure.aborted ? 'cancelled' : 'failed', { error: span.failure.error });
    const interrupts = payload.interrupts ?? [];
    if (interrupts.length)
      return this.finish(
        payload.id,
        'interrupted',
        this.values ? { interrupts: traceValue(interrupts.map((i) => (i as { value?: unknown })?.value ?? i)) } : {},
      );
    this.finish(payload.id, 'completed', this.values ? { update: traceValue(payload.result ?? {}) } : {});
  }

  /** A node failure (instrumentNodes): the task's result, which follows, ends its span failed. */
  nodeFailure(taskId: string | undefined, error: unknown, aborted: boolean): void {
    if (!this.enabled) return;
    const span = taskId ? this.open.get(taskId) : undefined;
    if (span) span.failure = { error, aborted };
    // The branch that threw it (the SDK's fanOut marks the error), if its own end was lost.
    const branch = error && typeof error === 'object' ? (error as Record<symbol, unknown>)[FAILED_BRANCH] : undefined;
    if (typeof branch === 'string') this.finish(branch, aborted ? 'cancelled' : 'failed', { error });
  }

  /** A fan-out branch (the SDK's fanOut). */
  branch(signal: BranchSignal): void {
    if (!this.enabled) return;
    if (signal.phase === 'label') {
      const span = this.open.get(signal.span_id);
      if (!span?.deferred) return;
      Object.assign(span, { node: signal.node, kind: 'branch' as const });
      this.started(signal.span_id, span);
    } else if (signal.phase === 'start') {
      const parent = signal.parent_span_id ? this.open.get(signal.parent_span_id) : undefined;
      this.begin(signal.span_id, signal.node, 'branch', signal.parent_span_id, parent?.step ?? 1);
    } else if (signal.interrupted) {
      this.finish(signal.span_id, 'interrupted', {});
    } else if (signal.error !== undefined) {
      this.finish(signal.span_id, signal.aborted ? 'cancelled' : 'failed', { error: signal.error });
    } else {
      this.finish(signal.span_id, 'completed', {});
    }
  }

  /** The invocation failed with `error`: the node (and fan-out branch) that threw it end
   * failed, from what the error itself carries: their own signals on the stream may not have
   * been read before LangGraph rethrew it. Then every other open span ends cancelled. */
  failWith(error: unknown): void {
    if (this.enabled) {
      const failure = failureOf(error);
      this.nodeFailure(failure?.taskId, error, failure?.aborted ?? false);
      const task = failure?.taskId ? this.open.get(failure.taskId) : undefined;
      if (task?.failure) this.finish(failure!.taskId!, task.failure.aborted ? 'cancelled' : 'failed', { error });
    }
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

  private begin(id: string, node: string, kind: SpanKind, parent: string | undefined, step: number, deferred = false): void {
    const span: OpenSpan = { node, kind, parent, step, t0: performance.now(), deferred };
    this.open.set(id, span);
    if (!deferred) this.started(id, span);
  }

  private started(id: string, span: OpenSpan): void {
    span.deferred = false;
    this.emit('span.start', { span_id: id, ...(span.parent ? { parent_span_id: span.parent } : {}), kind: span.kind, node: span.node, step: span.step });
  }

  private finish(id: string, status: SpanStatus, extra: { update?: unknown; interrupts?: unknown; error?: unknown }): void {
    const span = this.open.get(id);
    if (!span) return;
    if (span.deferred) this.started(id, span);
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

function stackOf(error: unknown): string | undefined {
  const stack = (error as { stack?: unknown } | null)?.stack;
  return typeof stack === 'string' ? stack.split('\n').slice(0, 12).join('\n') : undefined;
}
