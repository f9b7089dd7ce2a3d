// A2A while the store is unreachable (docs/deployment.md, "When the store is unreachable";
// D-50). The rule: nothing is answered as a success that is not stored.
//   - Every A2A method whose store call fails answers the JSON-RPC error STORE_UNAVAILABLE_RPC
//     (HTTP 503, a2a/routes.ts) with data {errorCode: UPSTREAM_UNAVAILABLE (spec 7.2),
//     errorReason: store_unavailable, retriable: true} and a message naming no address.
//   - A task whose save fails is not acknowledged (the SDK answers only after a save), its turn
//     is stopped (a2a/executor.ts `abandon`), and its `failed` state (errorReason
//     store_unavailable) is written once the store takes writes again (UnsavedTasks), so a task
//     a client did see (a stream's first event, a non-blocking send's answer) ends `failed`
//     rather than staying `working`, and one it did not see reads `failed` too, never
//     `completed`.
import { A2AError } from '@a2a-js/sdk/server';
import type { Task } from '@a2a-js/sdk';
import type { Logger } from 'pino';
import { outageOf, STORE_UNAVAILABLE_MESSAGE } from '../store/unavailable.ts';
import { storeUnavailableFailure } from '../execution/errors.ts';
import { agentMessage } from './mapping.ts';

/** JSON-RPC error code of a request refused because the store is unreachable. Outside A2A
 * 0.3's codes (-32001..-32007) and JSON-RPC's (-32600..-32603, -32700), in the range JSON-RPC
 * leaves to servers; -32010 is authentication's, -32020 shutting down (http/drain.ts). The
 * spec fixes no number (7.2, gaps). */
export const STORE_UNAVAILABLE_RPC = -32021;

export function storeUnavailableRpc(): A2AError {
  return new A2AError(STORE_UNAVAILABLE_RPC, `Unavailable: ${STORE_UNAVAILABLE_MESSAGE}`, {
    errorCode: 'UPSTREAM_UNAVAILABLE',
    errorReason: 'store_unavailable',
    retriable: true,
  });
}

/** `err` as the A2A answer: a store outage as STORE_UNAVAILABLE_RPC, anything else unchanged. */
export function rpcError(err: unknown): unknown {
  return outageOf(err) === null ? err : storeUnavailableRpc();
}

/** `task` ended `failed` because the store went away: partial output discarded (spec 3), the
 * status message and DataPart of spec 7.2. */
export function failedForOutage(task: Task): Task {
  const failure = storeUnavailableFailure();
  const message = agentMessage(
    [
      { kind: 'text', text: failure.message },
      { kind: 'data', data: failure.toDataPart() },
    ],
    task.id,
    task.contextId,
  );
  return { ...task, artifacts: [], status: { state: 'failed', timestamp: new Date().toISOString(), message } };
}

const FIRST_RETRY_MS = 250;
const LONGEST_RETRY_MS = 5_000;

/** Tasks whose save failed, each kept as its `failed` version and written once the store takes
 * writes (tried again with a growing delay). */
export class UnsavedTasks {
  private readonly tasks = new Map<string, Task>();
  private timer: NodeJS.Timeout | undefined;
  private delay = FIRST_RETRY_MS;
  private closed = false;
  /** Told when a task was written or given up (the count dropped). */
  onWritten: (taskId: string) => void = () => undefined;

  constructor(
    private readonly write: (task: Task) => Promise<void>,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  get size(): number {
    return this.tasks.size;
  }

  has(taskId: string): boolean {
    return this.tasks.has(taskId);
  }

  /** The task's end is `failed` (store_unavailable), whatever is saved for it meanwhile. */
  add(task: Task): void {
    this.tasks.set(task.id, failedForOutage(task));
    this.delay = FIRST_RETRY_MS;
    this.schedule();
  }

  private schedule(): void {
    if (this.closed || this.timer || this.tasks.size === 0) return;
    this.timer = setTimeout(() => void this.retry(), this.delay).unref();
  }

  /** Writes what it can; stops at the first outage and tries again later. Never rejects. */
  private async retry(): Promise<void> {
    this.timer = undefined;
    for (const [id, task] of [...this.tasks]) {
      try {
        await this.write(task);
        if (this.tasks.get(id) === task) this.tasks.delete(id);
        this.onWritten(id);
      } catch (err) {
        if (outageOf(err) !== null) break;
        this.tasks.delete(id); // not an outage: trying again would fail the same way
        this.log.warn({ task_id: id, err: (err as Error).message }, 'the failed state of a task whose save failed could not be written');
        this.onWritten(id);
      }
    }
    this.delay = Math.min(this.delay * 2, LONGEST_RETRY_MS);
    this.schedule();
  }

  /** Stops trying; what is still unwritten is named in the log. */
  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.tasks.size) this.log.warn({ task_ids: [...this.tasks.keys()] }, 'tasks whose save failed were not written as failed before the runtime stopped');
  }
}
