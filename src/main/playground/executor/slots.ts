// An experiment's invocation slots (docs/playground-api.md, "Datasets and experiments"; D-118):
// at most `size` of its runs are answered by the runtime at a time. A run admitted ahead waits
// `queued` for a slot; it takes one just before it is prepared and invoked, and gives it back
// when the runtime's answer reaches its final status (the runtime is done with it) or the run
// ends, whichever comes first.
export class RunSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {
    this.free = size;
  }

  /** Resolves true once the caller holds a slot, false when `signal` aborts first. */
  acquire(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const grant = (): void => {
        signal.removeEventListener('abort', drop);
        resolve(true);
      };
      const drop = (): void => {
        const i = this.waiting.indexOf(grant);
        if (i >= 0) this.waiting.splice(i, 1);
        resolve(false);
      };
      this.waiting.push(grant);
      signal.addEventListener('abort', drop, { once: true });
    });
  }

  /** Gives a slot back: the longest waiting run takes it at once. */
  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free = Math.min(this.size, this.free + 1);
  }
}

/** The runtime is done with the run (its final status, or the run ended): the slot it holds,
 * if any, is given back, once. */
export function freeSlot(run: { slots: RunSlots | null; holdsSlot: boolean }): void {
  if (!run.holdsSlot) return;
  run.holdsSlot = false;
  run.slots?.release();
}
