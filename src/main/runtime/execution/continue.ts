// Continuing a thread from its latest checkpoint, with no new input: the graph streams with a
// null input and LangGraph runs the checkpoint's next nodes, so the nodes before it do not run
// again (docs/playground-api.md, "Breakpoints and stepping" and "Fork and re-run from a
// checkpoint": a paused run's Continue/Step, and a fork's run on its copied thread). A thread
// with nothing left to run cannot be continued.
import { Command } from '@langchain/langgraph';
import { AgentError } from '../../../sdk/errors.ts';
import type { AgentRequest } from '../../../sdk/state.ts';
import { pauseOf, type PausePoint } from '../../../shared/breakpoints.ts';
import type { Generation } from '../project/registry.ts';
import { BRANCH_RESULTS_KEY } from '../../../sdk/fanout.ts';
import { subgraphNodeIds } from './subgraphs.ts';
import { pendingSendGates, sendGateResume } from './send-gates.ts';

/** The graph's input that continues the thread from its latest checkpoint (null, or a resume past
 * a fan-out gate), and the request
 * of the turn that paused (the thread's `request` channel): the continued turn's evaluators judge
 * the answer against it, not against the empty message that asked to continue. */
export async function continueInput(
  gen: Generation,
  threadId: string,
  pausedAt: PausePoint | undefined,
  emit: (name: string, fields: Record<string, unknown>) => void,
): Promise<{ input: Command | null; request: AgentRequest | undefined }> {
  // A reload since the pause runs the new code from the paused checkpoint, and says so; a
  // reload that removed the node the run paused before leaves nothing to continue there.
  const reloaded = pausedAt?.generation !== undefined && pausedAt.generation !== gen.number;
  // A fan-out branch (`skills[refund]`) lives in its node; a subgraph's node (`inner:rank`) in
  // the subgraph.
  const node = pausedAt?.node.replace(/\[.+\]$/, '');
  const known = (n: string) => (gen.graph.nodes ? n in gen.graph.nodes : true) || subgraphNodeIds(gen.graph).includes(n);
  if (pausedAt && node && pausedAt.when === 'before' && !known(node)) {
    throw new AgentError({
      code: 'INVALID_INPUT',
      reason: 'paused_node_missing',
      message: `The loaded graph no longer has node '${pausedAt.node}', where this run paused (the project was reloaded): stop the paused run, or fork from its last checkpoint.`,
      detail: { node: pausedAt.node, paused_generation: pausedAt.generation ?? null, generation: gen.number },
    });
  }
  if (pausedAt)
    emit('debug.continue', { node: pausedAt.node, when: pausedAt.when, paused_generation: pausedAt.generation ?? null, generation: gen.number, reloaded });
  const state = await gen.graph.getState({ configurable: { thread_id: threadId } });
  // Paused at a fan-out gate (a dynamic interrupt inside the node): resumed past it. (A task that
  // already took a resume has writes, so LangGraph leaves it out of `next`.)
  const gate = state.tasks?.flatMap((t) => t.interrupts ?? []).find(Boolean);
  const gated = gate !== undefined;
  // Paused at a Send task's gate: only that task's interrupt is resumed (by its id); the step's
  // other tasks pause again only where the continued run gates them (send-gates.ts).
  const sends = await pendingSendGates(gen.graph, threadId);
  const send = sends.find((g) => pauseOf(g.value)?.node === pausedAt?.node && pauseOf(g.value)?.when === pausedAt?.when) ?? sends[0];
  if (!state.next?.length && !gated) {
    throw new AgentError({
      code: 'INVALID_INPUT',
      reason: 'nothing_to_continue',
      message: `Thread ${threadId} has no paused step to continue: its latest checkpoint has no next node.`,
    });
  }
  const values = (state.values ?? {}) as { request?: AgentRequest };
  // A gate after branches keeps their results in its value: the resume hands them back, so the
  // node goes on with them and does not run its branches again (src/sdk/fanout.ts).
  const kept = (gate?.value as { [BRANCH_RESULTS_KEY]?: unknown } | undefined)?.[BRANCH_RESULTS_KEY];
  const resume = kept !== undefined ? { [BRANCH_RESULTS_KEY]: kept } : true;
  if (send) return { input: new Command({ resume: sendGateResume(send) }), request: values.request ?? undefined };
  return { input: gated ? new Command({ resume }) : null, request: values.request ?? undefined };
}
