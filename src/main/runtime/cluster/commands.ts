// This runtime's side of cluster control (control.ts): what another replica's notification
// does here. Only the replica running a task acts on it; the others have nothing to stop.
import type { Logger } from 'pino';
import type { ControlHandlers } from './control.ts';

export interface LocalTasks {
  /** Whether this process runs the task now. */
  runsHere(taskId: string): boolean;
  /** tasks/cancel, as the A2A handler answers it. */
  cancelTask(params: { id: string }): Promise<unknown>;
  /** tasks/resubscribe, as the A2A handler answers it. */
  resubscribe(params: { id: string }): AsyncIterable<unknown>;
}

export interface ControlTargets {
  tasks: LocalTasks;
  /** PATCH /api/v1/card/url made on another replica. */
  setCardUrl(url: string): void;
  /** PATCH /api/v1/memory/config made on another replica. */
  updateMemory(values: Record<string, unknown>): void;
  /** POST /api/v1/registry/reload made on another replica. */
  reload(): Promise<unknown>;
  log: Logger;
}

export function controlHandlers(t: ControlTargets): ControlHandlers {
  const { tasks, log } = t;
  return {
    cancel: (taskId) => {
      if (tasks.runsHere(taskId))
        void tasks
          .cancelTask({ id: taskId })
          .catch((err: unknown) => log.warn({ task_id: taskId, err: (err as Error).message }, 'cancel from another replica failed'));
    },
    cardUrl: (url) => t.setCardUrl(url),
    memoryConfig: (values) => t.updateMemory(values),
    reload: () => t.reload(),
    follow: (taskId, publish, done) => {
      if (!tasks.runsHere(taskId)) return false;
      void (async () => {
        try {
          for await (const event of tasks.resubscribe({ id: taskId })) publish(event);
        } catch (err) {
          log.warn({ task_id: taskId, err: (err as Error).message }, 'following a task for another replica failed');
        } finally {
          done();
        }
      })();
      return true;
    },
  };
}
