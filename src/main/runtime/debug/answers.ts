// Answers to the agent's questions in a thread's history (docs/playground-api.md, "Conversation
// branches"): a resumed turn adds a human message to the transcript without an input checkpoint
// of its own. LangGraph writes the resume (`__resume__`) and its update (the human message, as a
// `messages` write; execution/input.ts) as pending writes of the checkpoint it resumes, under
// one task id. Those checkpoints are what a count of a thread's human messages adds to its input
// checkpoints. A breakpoint's Continue resumes with no message and is not counted.
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';

const RESUME = '__resume__';
const MESSAGES = 'messages';

/** Checkpoints after `after` (exclusive; '' for none) and before `before` (exclusive) that an
 * answer with a human message resumed. Reads those checkpoints (newest first, as `list` gives them). */
export async function answersBetween(saver: BaseCheckpointSaver, threadId: string, after: string, before: string): Promise<number> {
  let answers = 0;
  const config = { configurable: { thread_id: threadId, checkpoint_ns: '' } };
  for await (const t of saver.list(config, { before: { configurable: { checkpoint_id: before } } })) {
    if ((t.config.configurable?.checkpoint_id as string) <= after) break;
    const writes = t.pendingWrites ?? [];
    const resumed = new Set(writes.filter(([, channel]) => channel === RESUME).map(([task]) => task));
    if (writes.some(([task, channel]) => channel === MESSAGES && resumed.has(task))) answers += 1;
  }
  return answers;
}
