// The task store as the A2A handler sees it, counting the tasks of this process that are not
// settled yet: saved `submitted` or `working` here and not yet saved in a final state or
// waiting for input. A draining runtime (http/shutdown.ts) stops only once that count is 0,
// so the last save of every task started here, a non-blocking send's included (the SDK
// writes it after the request was answered), reaches the store before the store closes
// (docs/deployment.md, "Shutdown and health").
// A save that fails (the store unreachable, store/unavailable.ts, or closed under it) does not reject:
// the SDK's handler would then answer a blocking send with the task as it last had it, and
// leave its own rejection unhandled. Instead the task is noted as lost (`lost`, which the
// handler checks before any answer or event goes out, a2a/replicas.ts), its turn is stopped
// (`onUnsaved`), later saves of it are not written, and UnsavedTasks writes it `failed` once
// the store takes writes (a2a/store-outage.ts); it counts as unsettled until then.
import type { Task, TaskState } from '@a2a-js/sdk';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import { outageOf } from '../store/unavailable.ts';
import { UnsavedTasks } from './store-outage.ts';

const IN_PROGRESS: ReadonlySet<TaskState> = new Set<TaskState>(['submitted', 'working']);
/** Settled tasks whose content is kept for reads during an outage. */
const KEPT_SETTLED = 256;

export class SettlingTaskStore implements TaskStore {
  private readonly unsettledIds = new Set<string>();
  /** Saves under way: a settling save counts until it is written. */
  private saving = 0;
  /** Tasks whose save failed, to be written `failed`. */
  private readonly unsaved: UnsavedTasks;
  /** Tasks whose save failed, until the handler asked (or their failed state was written). */
  private readonly lostIds = new Set<string>();
  /** The newest settled content this process wrote, per task (read back during an outage). */
  private readonly settledHere = new Map<string, string>();
  /** Told whenever the count may have dropped. */
  onChange: () => void = () => undefined;
  /** Told when a task's save failed for a store outage: its turn should stop. */
  onUnsaved: (taskId: string) => void = () => undefined;

  constructor(
    private readonly inner: TaskStore,
    private readonly log: Pick<Logger, 'warn' | 'error'>,
  ) {
    this.unsaved = new UnsavedTasks((task) => inner.save(task), log);
    this.unsaved.onWritten = (taskId) => {
      this.lostIds.delete(taskId);
      this.onChange();
    };
  }

  /** Tasks started here and not settled, saves still being written, and tasks whose failed
   * state is still to be written. */
  get unsettled(): number {
    return this.unsettledIds.size + this.saving + this.unsaved.size;
  }

  async save(task: Task, context?: ServerCallContext): Promise<void> {
    // Its end is decided (failed, store_unavailable): what the SDK saves after is not written.
    if (this.unsaved.has(task.id)) return;
    const inProgress = IN_PROGRESS.has(task.status.state);
    if (inProgress) this.unsettledIds.add(task.id);
    this.saving += 1;
    try {
      await this.inner.save(task, context);
      if (!inProgress) this.keep(task);
    } catch (err) {
      // Any failed save, an outage or not (a store closed under it): rejecting would make the
      // SDK answer a blocking send with the unsaved task and leave its own rejection unhandled.
      if (outageOf(err) === null) this.log.error({ err, task_id: task.id }, 'task not saved');
      this.unsettledIds.delete(task.id);
      this.lostIds.add(task.id);
      this.unsaved.add(task);
      this.onUnsaved(task.id);
    } finally {
      this.saving -= 1;
      if (!inProgress) this.unsettledIds.delete(task.id);
      this.onChange();
    }
  }

  /** Whether a save of the task failed since it was last asked (the answer must not claim it). */
  lost(taskId: string): boolean {
    return this.lostIds.delete(taskId);
  }

  /** Stops writing failed states (the store closes next). */
  close(): void {
    this.unsaved.close();
  }

  /** A task as stored; while the store is unreachable, a task this process wrote settled (kept,
   * `settledHere`) reads as written: the SDK reads a resumed task back once its turn's first
   * event is out, and its failure there would go unhandled and answer no result. */
  async load(taskId: string, context?: ServerCallContext): Promise<Task | undefined> {
    try {
      return await this.inner.load(taskId, context);
    } catch (err) {
      const kept = outageOf(err) === null ? undefined : this.settledHere.get(taskId);
      if (kept === undefined) throw err;
      return JSON.parse(kept) as Task;
    }
  }

  /** Keeps what a settling save wrote (a few hundred tasks, the newest). */
  private keep(task: Task): void {
    this.settledHere.delete(task.id);
    this.settledHere.set(task.id, JSON.stringify(task));
    if (this.settledHere.size > KEPT_SETTLED) this.settledHere.delete(this.settledHere.keys().next().value!);
  }
}
