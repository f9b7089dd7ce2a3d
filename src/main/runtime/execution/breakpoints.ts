// Breakpoints of a studio run (docs/playground-api.md, "Breakpoints and stepping"): the
// studio's debug control (RESERVED_DEBUG_KEY) as LangGraph's per-invocation interruptBefore /
// interruptAfter, and where a run that stopped at one paused. LangGraph's static interrupts
// match only the top graph's node names; a node inside a subgraph (`inner:rank`) pauses through
// the subgraph's own static interrupts (subgraphs.ts), and a fan-out branch (`skills[refund]`)
// is gated by the SDK's fanOut helper itself (BRANCH_GATES_KEY), which pauses with a dynamic
// interrupt, and a task a Send started (`score[1]`) by the runtime's node wrapper the same way
// (send-gates.ts).
import { EVERY_NODE, SUBGRAPH_NODE_SEPARATOR, pauseOf, type DebugControl, type PausePoint } from '../../../shared/breakpoints.ts';
import { BRANCH_GATES_KEY } from '../../../sdk/fanout.ts';
import type { Generation } from '../project/registry.ts';
import { armSubgraphs, pathOfNamespace, SUBGRAPH_BREAKPOINTS_KEY } from './subgraphs.ts';
import { pendingSendGates } from './send-gates.ts';

export interface InterruptOptions {
  interruptBefore?: string[] | '*';
  interruptAfter?: string[];
}

/** Step mode: the Step action, or a breakpoint on EVERY_NODE before (pause before every node). */
function stepping(debug: DebugControl | null | undefined): boolean {
  return !!debug && (debug.step || debug.breakpoints.some((b) => b.node === EVERY_NODE && b.when === 'before'));
}

/** The stream options that make the graph pause at the run's breakpoints. */
export function interruptOptions(debug: DebugControl | null | undefined, gen: Generation): InterruptOptions {
  if (!debug) return {};
  const known = new Set(Object.keys(gen.graph.nodes ?? {}));
  const names = (when: 'before' | 'after') => [...new Set(debug.breakpoints.filter((b) => b.when === when && known.has(b.node)).map((b) => b.node))];
  const before = names('before');
  const after = names('after');
  return {
    ...(stepping(debug) ? { interruptBefore: '*' as const } : before.length ? { interruptBefore: before } : {}),
    ...(after.length ? { interruptAfter: after } : {}),
  };
}

interface Snapshot {
  next?: readonly string[];
  config?: { configurable?: Record<string, unknown> };
  tasks?: readonly { name: string; state?: unknown; interrupts?: readonly unknown[] }[];
}

/** The innermost graph that stopped: the top graph's state, or a subgraph's (a paused subgraph
 * task's state, read with `subgraphs: true`: one with a next node, or the one the last node ran
 * in, for a pause after a subgraph's last node) with its path (`inner`). */
function innermost(state: Snapshot, lastNode: string | null): { state: Snapshot; path: string } {
  for (const t of state.tasks ?? []) {
    const sub = t.state as Snapshot | undefined;
    if (!sub || typeof sub !== 'object' || !sub.config?.configurable?.checkpoint_id) continue;
    const path = pathOfNamespace((sub.config.configurable.checkpoint_ns as string | undefined) ?? '');
    if (sub.next?.length || lastNode?.startsWith(`${path}${SUBGRAPH_NODE_SEPARATOR}`)) {
      const deeper = innermost(sub, lastNode);
      return deeper.path ? deeper : { state: sub, path };
    }
  }
  return { state, path: '' };
}

/** Where a graph that stopped at a static interrupt paused: before the next node when a
 * before-breakpoint (or step mode) names it, else after the last node that ran (`lastNode`, a
 * subgraph's as `inner:lookup`). Inside a subgraph, the node, checkpoint and namespace are the
 * subgraph's. Null when nothing is left to run (an after-breakpoint on the last node: the run
 * simply completes). */
export async function pausePoint(
  gen: Generation,
  threadId: string,
  debug: DebugControl | null | undefined,
  lastNode: string | null,
): Promise<PausePoint | null> {
  const top = (await gen.graph.getState({ configurable: { thread_id: threadId } }, { subgraphs: true })) as Snapshot;
  if (!top.next?.length) return null;
  const { state, path } = innermost(top, lastNode);
  const qualify = (n: string) => (path ? `${path}${SUBGRAPH_NODE_SEPARATOR}${n}` : n);
  const next = [...(state.next ?? [])].map(qualify);
  const checkpointId = (state.config?.configurable?.checkpoint_id as string | undefined) ?? null;
  const ns = (state.config?.configurable?.checkpoint_ns as string | undefined) ?? '';
  const where = { checkpoint_id: checkpointId, ...(ns ? { checkpoint_ns: ns } : {}), generation: gen.number };
  const before = stepping(debug) ? next[0] : next.find((n) => debug?.breakpoints.some((b) => b.node === n && b.when === 'before'));
  if (before) return { node: before, when: 'before', ...where };
  return { node: lastNode ?? next[0] ?? top.next[0]!, when: lastNode ? 'after' : 'before', ...where };
}

/** The question of a paused turn's input-required status. */
export function pauseText(p: PausePoint): string {
  return `Paused ${p.when} ${p.node} (breakpoint).`;
}

const BRANCH = /\[.+\]$/;

/** The configurable entries of a run's debug control: the fan-out branches' gates
 * (src/sdk/fanout.ts; before, and after a branch completes) and the subgraph nodes' breakpoints
 * (subgraphs.ts, which arms the graph's subgraphs). */
export function debugConfigurable(debug: DebugControl | null | undefined, gen: Generation): Record<string, unknown> {
  if (!debug) return {};
  const step = stepping(debug);
  const branches = (when: 'before' | 'after') => debug.breakpoints.filter((b) => b.when === when && BRANCH.test(b.node)).map((b) => b.node);
  const [nodes, after] = [branches('before'), branches('after')];
  const inside = (when: 'before' | 'after') =>
    debug.breakpoints.filter((b) => b.when === when && b.node.includes(SUBGRAPH_NODE_SEPARATOR) && !BRANCH.test(b.node)).map((b) => b.node);
  const sub = { before: inside('before'), after: inside('after'), step };
  const subs = sub.before.length || sub.after.length || step;
  if (subs) armSubgraphs(gen.graph);
  return {
    ...(nodes.length || after.length || step ? { [BRANCH_GATES_KEY]: { nodes, after, step } } : {}),
    ...(subs ? { [SUBGRAPH_BREAKPOINTS_KEY]: sub } : {}),
  };
}

/** A dynamic interrupt that is a fan-out gate (its value names the branch), as a pause point: at
 * the checkpoint of the graph whose node is gated (a subgraph's, with its namespace, for a branch
 * of a subgraph's node). */
export async function gatePause(gen: Generation, threadId: string, interrupt: { value?: unknown }): Promise<PausePoint | null> {
  let at = pauseOf(interrupt.value);
  if (!at) return null;
  let state = (await gen.graph.getState({ configurable: { thread_id: threadId } }, { subgraphs: true })) as Snapshot;
  // Several Send tasks of a step may stop at their gates: the run is paused at the first one.
  const first = (await pendingSendGates(gen.graph, threadId))[0];
  if (first) at = pauseOf(first.value) ?? at;
  for (let sub = gatedSubgraph(state); sub; sub = gatedSubgraph(sub)) state = sub;
  const checkpointId = (state.config?.configurable?.checkpoint_id as string | undefined) ?? null;
  const ns = (state.config?.configurable?.checkpoint_ns as string | undefined) ?? '';
  return { node: at.node, when: at.when, checkpoint_id: checkpointId, ...(ns ? { checkpoint_ns: ns } : {}), generation: gen.number };
}

/** The subgraph state whose task holds the interrupt, if the interrupt came from a subgraph. */
function gatedSubgraph(state: Snapshot): Snapshot | undefined {
  for (const t of state.tasks ?? []) {
    const sub = t.state as Snapshot | undefined;
    if (sub?.config?.configurable?.checkpoint_id && sub.tasks?.some((x) => (x as { interrupts?: unknown[] }).interrupts?.length)) return sub;
  }
  return undefined;
}
