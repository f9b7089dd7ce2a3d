// The delivery loop every replica runs (D-90): claims due outbox rows with a lease, sends each
// (deliver.ts), and settles it: delivered, due again after a back-off (settings.ts), or failed
// once PUSH_MAX_ATTEMPTS attempts are used or the answer refuses it for good. A replica that
// dies holding a claim sends nothing more; its lease (twice PUSH_TIMEOUT_MS, longer than any
// attempt) runs out and another replica claims the row. A row is sent again only when an
// attempt's outcome was never recorded (its replica died, or the store was unreachable).
import type { Logger } from 'pino';
import type { OutboxRow, PushStore } from '../store/push-store.ts';
import { deliverOnce, type DeliveryOutcome, type NotificationBodies } from './deliver.ts';
import { retryDelayMs, type PushSettings } from './settings.ts';

/** Rows claimed at a time. */
const BATCH = 16;

export interface PushWorkerDeps {
  store: PushStore;
  settings: PushSettings;
  replica: string;
  log: Pick<Logger, 'warn' | 'info' | 'debug'>;
  /** A notification's body for a configuration stored by another A2A version than 0.3 (D-104). */
  bodies?: NotificationBodies;
}

export class PushWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private failing = false;
  /** Told each attempt's outcome (the metrics). */
  onAttempt: (outcome: 'delivered' | 'retried' | 'failed') => void = () => undefined;

  constructor(private readonly deps: PushWorkerDeps) {}

  /** Looks for due rows every PUSH_POLL_MS. */
  start(): void {
    this.timer ??= setInterval(() => this.kick(), this.deps.settings.pollMs).unref();
    this.kick();
  }

  /** Looks now (a notification was just written here). */
  kick(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Stops polling and waits for the attempts under way (each ends within PUSH_TIMEOUT_MS). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    const { store, settings, replica, log } = this.deps;
    for (;;) {
      if (this.closed) return;
      let rows: OutboxRow[];
      try {
        rows = await store.claim(replica, settings.timeoutMs * 2, BATCH);
        if (this.failing) log.info({}, 'push notifications: the store answers again');
        this.failing = false;
      } catch (err) {
        if (!this.failing) log.warn({ err: (err as Error).message }, 'push notifications: cannot read the outbox; trying again');
        this.failing = true;
        return;
      }
      await Promise.all(rows.map((row) => this.send(row)));
      if (rows.length < BATCH) return;
    }
  }

  private async send(row: OutboxRow): Promise<void> {
    const { store, settings, replica, log } = this.deps;
    const outcome: DeliveryOutcome =
      row.attempts > settings.maxAttempts ? { kind: 'refused', error: 'attempts used up' } : await deliverOnce(row, { ...settings, bodies: this.deps.bodies });
    const at = { task_id: row.taskId, push_config_id: row.configId, attempt: row.attempts };
    let settle: Parameters<PushStore['settle']>[2];
    if (outcome.kind === 'delivered') settle = { status: 'delivered' };
    else if (outcome.kind === 'retry' && row.attempts < settings.maxAttempts) settle = { status: 'pending', delayMs: retryDelayMs(settings, row.attempts) };
    else settle = { status: 'failed' };
    this.onAttempt(settle.status === 'pending' ? 'retried' : settle.status);
    if (outcome.kind === 'delivered') log.debug(at, 'push notification delivered');
    else log.warn({ ...at, err: outcome.error, given_up: settle.status === 'failed' }, 'push notification not delivered');
    try {
      await store.settle(row.id, replica, settle, outcome.kind === 'delivered' ? undefined : outcome.error.slice(0, 500));
    } catch (err) {
      // Unrecorded: the claim runs out and the row is claimed again (sent again if it was delivered).
      log.warn({ ...at, err: (err as Error).message }, 'push notification outcome not recorded');
    }
  }
}
