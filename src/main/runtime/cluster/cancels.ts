// Cancels asked on another replica for a run of this one (docs/deployment.md, "Replicas"):
// the PostgreSQL store sees the task row's flag at its lease renewal and reports it here;
// the A2A handler, built after the store, listens and cancels the run the usual way. A
// report with no listener has no run here to cancel (no run starts before the handler).
type Listener = (taskId: string) => void;

export class CancelRequests {
  private readonly listeners: Listener[] = [];

  /** Called by the store with the tasks whose cancel was asked elsewhere. */
  readonly report = (taskIds: readonly string[]): void => {
    for (const id of taskIds) for (const listener of this.listeners) listener(id);
  };

  listen(listener: Listener): void {
    this.listeners.push(listener);
  }
}
