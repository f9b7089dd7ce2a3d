// The health monitor of a ready runtime child: GET /livez every interval; after `failures`
// misses in a row the child is reported hung (the supervisor kills it and its exit restarts
// it, docs/playground-api.md).

export interface HealthMonitorOptions {
  /** One check: true when the runtime at `url` answered 200 within `timeoutMs`. */
  check: (url: string, timeoutMs: number) => Promise<boolean>;
  intervalMs: number;
  /** Misses in a row after which the child is hung. */
  failures: number;
  /** Timeout of one check. */
  timeoutMs: number;
}

export class HealthMonitor {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: HealthMonitorOptions) {}

  /** Watches the runtime at `url` until stop(); `current` says whether the child checked is
   * still the supervised one (a late answer about an older child is dropped); `onHung` is
   * called on every check that finds `failures` or more misses in a row. */
  watch(url: string, current: () => boolean, onHung: () => void): void {
    this.stop();
    let misses = 0;
    this.timer = setInterval(() => {
      void this.o.check(url, this.o.timeoutMs).then((ok) => {
        if (!current()) return;
        misses = ok ? 0 : misses + 1;
        if (misses >= this.o.failures) onHung();
      });
    }, this.o.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
