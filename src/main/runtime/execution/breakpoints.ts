// Breakpoints of a studio run (docs/playground-api.md, "Breakpoints and stepping"): the
// studio's debug control (RESERVED_DEBUG_KEY) as LangGraph's per-invocation interruptBefore /
// interruptAfter, and where a run that stopped at one paused. LangGraph's static interrupts
// match only the top graph's node names; a fan-out branch (`skills[refund]`) is gated by the
// SDK's fanOut helper itself (BRANCH_GATES_KEY), which pauses with a dynamic interrupt.
import { EVERY_NODE, pauseOf, type DebugControl, type PausePoint } from '../../../shared/breakpoints.ts';
import { BRANCH_GATES_KEY } from '../../../sdk/fanout.ts';
import type { Generation } from '../project/registry.ts';

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

/** Where a graph that stopped at a static interrupt paused: before the next node when a
 * before-breakpoint (or step mode) names it, else after the last node that ran. Null when
 * nothing is left to run (an after-breakpoint on the last node: the run simply completes). */
export async function pausePoint(
  gen: Generation,
  threadId: string,
  debug: DebugControl | null | undefined,
  lastNode: string | null,
): Promise<PausePoint | null> {
  const state = await gen.graph.getState({ configurable: { thread_id: threadId } });
  const next = [...(state.next ?? [])];
  if (next.length === 0) return null;
  const checkpointId = (state.config?.configurable?.checkpoint_id as string | undefined) ?? null;
  const before = stepping(debug) ? next[0] : next.find((n) => debug?.breakpoints.some((b) => b.node === n && b.when === 'before'));
  const generation = gen.number;
  if (before) return { node: before, when: 'before', checkpoint_id: checkpointId, generation };
  return { node: lastNode ?? next[0]!, when: lastNode ? 'after' : 'before', checkpoint_id: checkpointId, generation };
}

/** The question of a paused turn's input-required status. */
export function pauseText(p: PausePoint): string {
  return `Paused ${p.when} ${p.node} (breakpoint).`;
}

const BRANCH = /\[.+\]$/;

/** The configurable entry that gates fan-out branches (src/sdk/fanout.ts), or none. */
export function branchGates(debug: DebugControl | null | undefined): Record<string, unknown> {
  if (!debug) return {};
  const nodes = debug.breakpoints.filter((b) => b.when === 'before' && BRANCH.test(b.node)).map((b) => b.node);
  const step = stepping(debug);
  return nodes.length || step ? { [BRANCH_GATES_KEY]: { nodes, step } } : {};
}

/** A dynamic interrupt that is a fan-out gate (its value names the branch), as a pause point. */
export async function gatePause(gen: Generation, threadId: string, interrupt: { value?: unknown }): Promise<PausePoint | null> {
  const at = pauseOf(interrupt.value);
  if (!at) return null;
  const state = await gen.graph.getState({ configurable: { thread_id: threadId } });
  return { ...at, checkpoint_id: (state.config?.configurable?.checkpoint_id as string | undefined) ?? null, generation: gen.number };
}
