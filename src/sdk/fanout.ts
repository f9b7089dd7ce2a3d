// Parallel fan-out with a concurrency cap (spec 8): extra branches wait and run as earlier
// ones finish; every result is collected in input order. p-limit does the queueing. Inside a
// graph node, each branch is reported to the runtime as a child span of the node (through the
// turn's trace hook, trace-hook.ts), so the studio shows the branches nested under it.
import pLimit from 'p-limit';
import { withCallScope } from './call-record.ts';
import { getConfig, interrupt, isGraphInterrupt } from '@langchain/langgraph';
import { runInBranch } from './branch-context.ts';
import { traceHookOf } from './trace-hook.ts';

export interface FanOutOptions<T = unknown> {
  /** Cap for this call site; defaults to the runtime's DEFAULT_FANOUT_MAX_CONCURRENCY. */
  maxConcurrency?: number;
  signal?: AbortSignal;
  /** A branch's name in the run timeline (default: its index), shown as `node[label]`. */
  label?: (item: T, index: number) => string;
}

/** Names the branch span on an error a branch threw: the node's failure report carries it even
 * when the branch's own end event is cut off by the failing superstep. */
export const FAILED_BRANCH = Symbol.for('agent-studio.failed-branch');

export interface BranchReporter {
  /** `index` makes the span id unique under its node (a number, or a string like `agent-1`). */
  start(index: number | string, label: string): string;
  end(id: string, error?: unknown): void;
  /** The branch span's name for a label: `node[label]`. */
  nodeOf(label: string): string;
}

/** Reports branches when called inside a graph node of a runtime turn, to the turn's trace hook
 * (trace-hook.ts), synchronously; also the span of a call to another agent (agent-call.ts). */
export function branchReporter(signal: AbortSignal | undefined): BranchReporter | null {
  let config: ReturnType<typeof getConfig> | undefined;
  try {
    config = getConfig();
  } catch {
    return null; // not inside a graph run
  }
  const hook = traceHookOf(config);
  const ns = config?.metadata?.langgraph_checkpoint_ns;
  if (!hook || hook.branches === false || typeof ns !== 'string') return null;
  const parent = ns.split('|').pop()!.split(':').pop()!;
  const node = String(config?.metadata?.langgraph_node ?? 'fanOut');
  return {
    nodeOf: (label) => `${node}[${label}]`,
    start(index, label) {
      const id = `${parent}/${index}`;
      hook.branch({ phase: 'start', span_id: id, parent_span_id: parent, node: `${node}[${label}]` });
      return id;
    },
    end(id, error) {
      const aborted = signal?.aborted === true || config?.signal?.aborted === true;
      // interrupt() inside a branch asks for input: not a failure.
      const outcome = error === undefined ? {} : isGraphInterrupt(error) ? { interrupted: true } : { error, aborted };
      hook.branch({ phase: 'end', span_id: id, node, ...outcome });
    },
  };
}

// The runtime and the project may hold separate copies of this module (the project's
// TypeScript loads in its own tsx namespace), so the default lives on globalThis.
const CAP_KEY = Symbol.for('agent-studio.fanout.defaultCap');
const shared = globalThis as unknown as Record<symbol, number | undefined>;

/** Set by the runtime at start from DEFAULT_FANOUT_MAX_CONCURRENCY. */
export function setDefaultFanoutConcurrency(cap: number): void {
  if (!Number.isInteger(cap) || cap <= 0) throw new RangeError(`fan-out cap must be a positive integer, got ${cap}`);
  shared[CAP_KEY] = cap;
}

export function defaultFanoutConcurrency(): number {
  return shared[CAP_KEY] ?? 4;
}

/** The runtime's configurable key with a studio run's branch breakpoints:
 * `{nodes: ['skills[refund]'], after: ['skills[billing]'], step}`. */
export const BRANCH_GATES_KEY = '__agentStudioBranchGates';
/** The key of the branches' results in a gate after them (its interrupt value and its resume). */
export const BRANCH_RESULTS_KEY = '__agentStudioBranchResults';

interface Gates {
  node: string;
  before: string[];
  after: string[];
}

/** The branches of this call that pause before they start and after they complete (studio runs only). */
function gatesOf(labels: string[]): Gates | null {
  let config: ReturnType<typeof getConfig> | undefined;
  try {
    config = getConfig();
  } catch {
    return null; // not inside a graph run
  }
  const gates = config?.configurable?.[BRANCH_GATES_KEY] as { nodes?: string[]; after?: string[]; step?: boolean } | undefined;
  if (!gates) return null;
  // Inside a subgraph the node is named with the nodes that run it (`inner:x`), read from the
  // task's checkpoint namespace (`inner:<task>|x:<task>`), as breakpoints name it.
  const ns = String(config?.metadata?.langgraph_checkpoint_ns ?? '');
  const outer = ns
    .split('|')
    .slice(0, -1)
    .map((part) => part.split(':')[0])
    .filter(Boolean);
  const node = [...outer, String(config?.metadata?.langgraph_node ?? 'fanOut')].join(':');
  const branches = labels.map((label) => `${node}[${label}]`);
  return {
    node,
    before: branches.filter((b) => gates.step || gates.nodes?.includes(b)),
    after: branches.filter((b) => gates.after?.includes(b)),
  };
}

/** Whether the task's next interrupt() has a resume waiting (LangGraph's task scratchpad). */
function resumeWaiting(): boolean {
  const sp = getConfig()?.configurable?.__pregel_scratchpad as { resume?: unknown[]; interruptCounter?: number; nullResume?: unknown } | undefined;
  if (!sp) return false;
  const next = (sp.interruptCounter ?? -1) + 1;
  return next < (sp.resume?.length ?? 0) || (sp.nullResume !== undefined && (sp.resume?.length ?? 0) === next);
}

const gate = (node: string, when: 'before' | 'after', extra: Record<string, unknown> = {}) =>
  interrupt({ breakpoint: { node, when, checkpoint_id: null }, ...extra });

/** Branch breakpoints (docs/playground-api.md, "Breakpoints and stepping"). Before any branch
 * starts, each gated branch (`node[label]` named by a breakpoint, or every branch in step mode)
 * pauses the graph in turn with interrupt(); a continue resumes it past that gate. A resumed
 * node runs again from its start, so every gate is passed before the branches run. After: once
 * every branch completed (before the node's result is written), each branch with an after
 * breakpoint pauses in turn; the gate keeps the branches' results in its value and the continue
 * hands them back, so the branches do not run again. */
async function gated<R>(gates: Gates | null, run: () => Promise<R[]>): Promise<R[]> {
  for (const b of gates?.before ?? []) gate(b, 'before');
  const after = gates?.after ?? [];
  if (!after.length) return run();
  let results: R[] | undefined;
  let passed = 0;
  if (resumeWaiting()) {
    const got = gate(after[0]!, 'after') as Record<string, unknown> | undefined;
    if (got && typeof got === 'object' && Array.isArray(got[BRANCH_RESULTS_KEY])) results = got[BRANCH_RESULTS_KEY] as R[];
    passed = 1;
  }
  results ??= await run();
  for (const b of after.slice(passed)) gate(b, 'after', { [BRANCH_RESULTS_KEY]: results });
  return results;
}

export async function fanOut<T, R>(items: readonly T[], task: (item: T, index: number) => Promise<R>, options: FanOutOptions<T> = {}): Promise<R[]> {
  const cap = options.maxConcurrency ?? defaultFanoutConcurrency();
  if (!Number.isInteger(cap) || cap <= 0) throw new RangeError(`maxConcurrency must be a positive integer, got ${cap}`);
  const limit = pLimit(cap);
  const report = branchReporter(options.signal);
  const gates = gatesOf(items.map((item, index) => options.label?.(item, index) ?? String(index)));
  return gated(gates, () =>
    Promise.all(
      items.map((item, index) =>
        limit(async () => {
          options.signal?.throwIfAborted();
          const label = options.label?.(item, index) ?? String(index);
          const id = report?.start(index, label);
          try {
            // The branch's model calls are counted under it (branch-context.ts), and its label
            // keys the branch's recorded calls (call-record.ts, D-91).
            const result = await runInBranch(id ? { span_id: id, node: report!.nodeOf(label) } : null, () =>
              withCallScope({ branch: { label, span_id: id ?? String(index) } }, () => task(item, index)),
            );
            if (id) report!.end(id);
            return result;
          } catch (err) {
            if (id) {
              if (err && typeof err === 'object' && !Object.isFrozen(err)) Object.defineProperty(err, FAILED_BRANCH, { value: id, configurable: true });
              report!.end(id, err);
            }
            throw err;
          }
        }),
      ),
    ),
  );
}
