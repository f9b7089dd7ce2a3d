// LangGraph's own parallel tasks (`Send`) as fan-out branches (docs/playground-api.md,
// "Breakpoints and stepping"; D-83). The runtime's node wrapper (project/node-failures.ts) runs
// every node of the top graph through sendTask: a task started by a Send is named
// `node[<index>]` (the index of the Send among that step's Sends to the node, 0-based, as
// fanOut's default label), which its span carries (spans.ts reads it as the task starts), and,
// in a studio run, gated like a fanOut branch (BRANCH_GATES_KEY): before it runs, a gated task
// pauses with a dynamic interrupt naming its branch (in step mode every task does), and a task
// with an after-breakpoint runs, then pauses with its update kept in the interrupt's value.
// Each task is its own LangGraph task, so the others of the step run (or pause) on their own;
// a continue resumes exactly the paused task's interrupt (by its id) and the others pause
// again only if the continued run still gates them.
import { getConfig, interrupt } from '@langchain/langgraph';
import { BRANCH_GATES_KEY } from '../../../sdk/fanout.ts';

/** The key, in a Send gate's interrupt value and in its resume, that marks it as one:
 * `{index, when}` in the value (the task's place among the step's Sends), and in the resume
 * `{when, update?}` (`update`: an after-gate's kept result, handed back to the node). */
export const SEND_GATE_KEY = '__agentStudioSendGate';

const PUSH = '__pregel_push';
const TASKS = '__pregel_tasks';

type Config = ReturnType<typeof getConfig>;

interface SendBranch {
  /** `node[<index>]`. */
  label: string;
  /** The task's place among all of the step's Sends (LangGraph's task path). */
  index: number;
  taskId: string;
}

/** The Send task running now, if the node runs as one (LangGraph's task path `[PUSH, i]`). */
export function sendBranch(node: string, config: Config | undefined): SendBranch | null {
  const path = config?.metadata?.langgraph_path as unknown[] | undefined;
  if (!Array.isArray(path) || path[0] !== PUSH || path.length !== 2 || typeof path[1] !== 'number') return null;
  const index = path[1];
  const configurable = (config?.configurable ?? {}) as Record<string, unknown>;
  // The index among the Sends to this node: the step's Sends are the tasks channel, read as the
  // task's own read does (unchanged while the step runs).
  let sends: unknown[] = [];
  try {
    const read = configurable.__pregel_read as ((select: string) => unknown) | undefined;
    const got = read?.(TASKS);
    if (Array.isArray(got)) sends = got;
  } catch {
    sends = []; // no tasks channel readable: the step's own index
  }
  const own = sends.length > index ? sends.slice(0, index).filter((s) => (s as { node?: unknown })?.node === node).length : index;
  const taskId = String(configurable.__pregel_task_id ?? '');
  return { label: `${node}[${own}]`, index, taskId };
}

interface GateResume {
  when: 'before' | 'after';
  update?: unknown;
}

/** The resume waiting for the task's `k`-th interrupt() call, if it is a Send gate's. */
function gateResume(config: Config | undefined, k: number): GateResume | null {
  const sp = config?.configurable?.__pregel_scratchpad as { resume?: unknown[] } | undefined;
  const v = sp?.resume?.[k] as Record<string, unknown> | undefined;
  const r = v && typeof v === 'object' ? (v[SEND_GATE_KEY] as GateResume | undefined) : undefined;
  return r && typeof r === 'object' ? r : null;
}

/** Runs one node call: a Send task passes its gates first. */
export async function sendTask<R>(node: string, config: Config | undefined, run: () => Promise<R> | R): Promise<R> {
  const branch = sendBranch(node, config);
  if (!branch) return run();
  const gates = config?.configurable?.[BRANCH_GATES_KEY] as { nodes?: string[]; after?: string[]; step?: boolean } | undefined;
  const pause = (when: 'before' | 'after', extra: Record<string, unknown> = {}) =>
    interrupt({ breakpoint: { node: branch.label, when, checkpoint_id: null }, [SEND_GATE_KEY]: { index: branch.index, when }, ...extra });
  let k = 0;
  // A gate the continue resumed is passed whatever the continued run gates (its resume must be
  // taken, in order); a gate of this run pauses.
  if (gateResume(config, k)?.when === 'before' || gates?.step || gates?.nodes?.includes(branch.label)) {
    pause('before');
    k += 1;
  }
  const kept = gateResume(config, k);
  if (kept?.when === 'after') {
    // Paused after it ran: its update was kept in the pause and comes back with the continue.
    pause('after');
    return kept.update as R;
  }
  const update = await run();
  if (gates?.after?.includes(branch.label)) pause('after', { update });
  return update;
}

/** Whether a node's call config is a Send task's (cheap: read on every node call). */
export function isSendTask(config: unknown): boolean {
  const path = (config as { metadata?: { langgraph_path?: unknown } } | undefined)?.metadata?.langgraph_path;
  return Array.isArray(path) && path[0] === PUSH && path.length === 2;
}

export interface PendingGate {
  id: string;
  value: Record<string, unknown>;
}

type Write = [string, string, unknown];
const NOT_DONE = new Set(['__interrupt__', '__resume__', '__error__']);

/** The Send gates a thread waits at, in the order of the step's Sends (the first is where the
 * run paused): the interrupts whose value is a Send gate's among its latest checkpoint's pending
 * writes, of tasks that have not finished since (a task resumed past its gate keeps its old
 * interrupt write beside its results). */
export async function pendingSendGates(graph: unknown, threadId: string): Promise<PendingGate[]> {
  const saver = (graph as { checkpointer?: { getTuple?: (c: unknown) => Promise<{ pendingWrites?: Write[] } | undefined> } }).checkpointer;
  const tuple = await saver?.getTuple?.({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
  const writes = tuple?.pendingWrites ?? [];
  const done = new Set(writes.filter(([, channel]) => !NOT_DONE.has(channel)).map(([task]) => task));
  const gates: PendingGate[] = [];
  for (const [task, channel, v] of writes) {
    if (channel !== '__interrupt__' || done.has(task)) continue;
    for (const i of Array.isArray(v) ? v : [v]) {
      const { id, value } = (i ?? {}) as { id?: unknown; value?: unknown };
      if (typeof id === 'string' && value && typeof value === 'object' && SEND_GATE_KEY in value) gates.push({ id, value: value as Record<string, unknown> });
    }
  }
  const index = (g: PendingGate) => Number((g.value[SEND_GATE_KEY] as { index?: unknown })?.index ?? 0);
  return gates.sort((a, b) => index(a) - index(b));
}

/** The resume of one Send gate (by its interrupt id, so the step's other gated tasks stay
 * where they are): past a before-gate, or past an after-gate with the task's kept update. */
export function sendGateResume(gate: PendingGate): Record<string, unknown> {
  const when = (gate.value[SEND_GATE_KEY] as { when?: unknown })?.when === 'after' ? 'after' : 'before';
  return { [gate.id]: { [SEND_GATE_KEY]: { when, ...(when === 'after' ? { update: gate.value.update } : {}) } } };
}
