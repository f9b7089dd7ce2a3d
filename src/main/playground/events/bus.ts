// In-memory fan-out of appended run events to live subscribers (SSE connections). An event
// reaches the bus the moment it is appended, before its batch is written, so a live client
// sees every delta promptly; events/log.ts keeps replay consistent with that.
export interface BusEntry {
  run_id: string;
  seq: number;
  kind: string;
  /** The event as JSON, serialised once for the database and every subscriber. */
  body: string;
  /** True for the run.status event that ends the run's stream (spec 4.3 rule 4). */
  terminal: boolean;
}

export type BusListener = (entry: BusEntry) => void;

export class EventBus {
  private readonly listeners = new Map<string, Set<BusListener>>();

  subscribe(runId: string, listener: BusListener): () => void {
    let set = this.listeners.get(runId);
    if (!set) {
      set = new Set();
      this.listeners.set(runId, set);
    }
    set.add(listener);
    return () => {
      const s = this.listeners.get(runId);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) this.listeners.delete(runId);
    };
  }

  publish(entry: BusEntry): void {
    const set = this.listeners.get(entry.run_id);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(entry);
      } catch {
        // one broken subscriber must not stop the run or the other subscribers
      }
    }
  }

  subscriberCount(runId: string): number {
    return this.listeners.get(runId)?.size ?? 0;
  }
}
