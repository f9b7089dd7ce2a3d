// historyLength as A2A 1.0 defines it and the Python reference server reads it, on tasks/get
// and message/send alike (docs/decisions.md D-44): absent = the task's whole history, 0 = none,
// n = the last n messages. The history itself is what the SDK records: the user's messages and
// the agent's status messages (input-required's question, failed's error), oldest first.
// @a2a-js/sdk 0.3's own getTask reads it otherwise (absent gives none, and 0 gives all through
// slice(-0)), and its message/send ignores configuration.historyLength: the request handler
// (replicas.ts) answers both through this function instead.
import type { Message, Task } from '@a2a-js/sdk';

/** A copy of `result` with its history limited; a Message passes through. Never changes the
 * task it is given: the SDK goes on updating that object while a non-blocking task runs. */
export function limitHistory<T extends Task | Message>(result: T, historyLength: number | undefined): T {
  if (result.kind !== 'task') return result;
  const history = result.history ?? [];
  const kept = historyLength === undefined ? history.slice() : historyLength === 0 ? [] : history.slice(-historyLength);
  return { ...result, history: kept };
}
