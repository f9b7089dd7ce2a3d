// The task store as the A2A handler sees it, counting the tasks of this process that are not
// settled yet: saved `submitted` or `working` here and not yet saved in a final state or
// waiting for input. A draining runtime (http/shutdown.ts) stops only once that count is 0,
// so the last save of every task started here, a non-blocking send's included (the SDK
// writes it after the request was answered), reaches the store before the store closes
// (docs/deployment.md, "Shutdown and health").
import type { Task, TaskState } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';

const IN_PROGRESS: ReadonlySet<TaskState> = new Set<TaskState>(['submitted', 'working']);

export class SettlingTaskStore implements TaskStore {
  private readonly unsettledIds = new Set<string>();
  /** Saves under way: a settling save counts until it is written. */
  private saving = 0;
  /** Told whenever the count may have dropped. */
  onChange: () => void = () => undefined;

  constructor(private readonly inner: TaskStore) {}

  /** Tasks started here and not settled, plus saves still being written. */
  get unsettled(): number {
    return this.unsettledIds.size + this.saving;
  }

  async save(task: Task, context?: ServerCallContext): Promise<void> {
    const inProgress = IN_PROGRESS.has(task.status.state);
    if (inProgress) this.unsettledIds.add(task.id);
    this.saving += 1;
    try {
      await this.inner.save(task, context);
    } finally {
      this.saving -= 1;
      if (!inProgress) this.unsettledIds.delete(task.id);
      this.onChange();
    }
  }

  load(taskId: string, context?: ServerCallContext): Promise<Task | undefined> {
    return this.inner.load(taskId, context);
  }
}
