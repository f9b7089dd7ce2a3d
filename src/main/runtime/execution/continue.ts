// A turn that continues its thread from the thread's latest checkpoint with no new input (a
// fork's run, docs/playground-api.md "Fork and re-run from a checkpoint"): LangGraph's stream
// with a null input resumes the checkpoint's `next` tasks, so the nodes before it do not run
// again. The conversation is the thread's as copied: no human message is added.
import { AgentError } from '../../../sdk/errors.ts';
import { prepareInput, type InputCall, type InputDeps } from './input.ts';

/** The graph's input for a continue: null, once the thread is known to have a checkpoint. */
export async function continueInput(deps: Pick<InputDeps, 'checkpointer'>, contextId: string): Promise<null> {
  const tuple = await deps.checkpointer().getTuple({ configurable: { thread_id: contextId, checkpoint_ns: '' } });
  if (!tuple) {
    throw new AgentError({ code: 'INVALID_INPUT', reason: 'nothing_to_continue', message: `Thread '${contextId}' has no checkpoint to continue from.` });
  }
  return null;
}

/** A turn's graph input: a continue's null, else the message's input (input.ts). */
export function turnInput(deps: InputDeps, fromCheckpoint: boolean | undefined, call: InputCall): Promise<unknown> {
  return fromCheckpoint ? continueInput(deps, call.contextId) : prepareInput(deps, call);
}
