// Push notifications for long tasks, independent of the A2A version that configures them
// (docs/a2a-conformance.md, "Push notifications"; D-89, D-90); nothing here knows an SDK. A
// binding (a2a/push-rpc.ts for 0.3.0) checks who may touch the task, then calls this service to
// check, store, read and delete a task's configurations, and tells it each saved task state
// (`notify`): in a state a client waits for (NOTIFY_STATES) that writes one outbox row per
// configuration, after the task itself is written and before anything is sent; the worker
// (worker.ts) delivers the rows, on whichever replica claims them.
import type { Logger } from 'pino';
import type { PushStore } from '../store/push-store.ts';
import { hostOf, MAX_CONFIGS_PER_TASK, parseConfig, PushInputError, type PushConfig } from './config.ts';
import type { NotificationBodies } from './deliver.ts';
import type { PushSettings } from './settings.ts';
import { checkedAddresses, TargetRefusedError } from './target.ts';
import { PushWorker } from './worker.ts';

/** The states that make a notification (A2A 0.3.0's names, as tasks are stored): the end of a
 * task, and a task waiting for its client. */
export const NOTIFY_STATES: ReadonlySet<string> = new Set(['completed', 'failed', 'canceled', 'rejected', 'input-required', 'auth-required']);

/** A task's saved state, as a binding tells it. */
export interface TaskChange {
  taskId: string;
  state: string;
  /** The status's timestamp: with the state, it names the change (saved twice, notified once). */
  at: string;
  /** What the receiver is sent: the task as JSON. */
  body: string;
}

export interface PushServiceDeps {
  store: PushStore;
  settings: PushSettings;
  replica: string;
  log: Pick<Logger, 'warn' | 'info' | 'debug'>;
  /** By A2A version: the body sent to a configuration that version stored, from the stored
   * task's JSON (D-104); a configuration without a version gets the task as stored. */
  bodies?: NotificationBodies;
}

/** A change's event key: with the state, the status's timestamp (saved twice, notified once). */
export const eventKey = (change: Pick<TaskChange, 'state' | 'at'>) => `${change.state}@${change.at}`;

export class PushService {
  readonly worker: PushWorker;

  constructor(private readonly deps: PushServiceDeps) {
    this.worker = new PushWorker(deps);
  }

  /** Checks a configuration as given (`at`: its field): its shape, and the addresses its host
   * resolves to now. A name that does not resolve now (no DNS here, a record not yet published)
   * is taken: every delivery resolves and checks it again. An empty `defaultId` leaves a missing
   * id to the task's id, set when stored. */
  async check(input: unknown, at: string, defaultId: string): Promise<PushConfig> {
    const config = parseConfig(input, at, defaultId, this.deps.settings.allowPrivate);
    if (this.deps.settings.allowPrivate) return config;
    try {
      await checkedAddresses(hostOf(new URL(config.url)), false);
    } catch (err) {
      if (err instanceof TargetRefusedError) throw new PushInputError(`${at}.url`, `Invalid params: ${at}.url is refused: ${err.message}`);
    }
    return config;
  }

  /** Stores a checked configuration (replacing the one with its id). */
  async set(taskId: string, config: PushConfig, at: string): Promise<PushConfig> {
    const stored = { ...config, id: config.id || taskId };
    if ((await this.deps.store.putConfig(taskId, stored, MAX_CONFIGS_PER_TASK)) === 'full')
      throw new PushInputError(at, `Invalid params: the task has ${MAX_CONFIGS_PER_TASK} push notification configurations already; delete one first`);
    return stored;
  }

  list(taskId: string): Promise<PushConfig[]> {
    return this.deps.store.configs(taskId);
  }

  async get(taskId: string, configId: string): Promise<PushConfig | undefined> {
    return (await this.deps.store.configs(taskId)).find((c) => c.id === configId);
  }

  delete(taskId: string, configId: string): Promise<void> {
    return this.deps.store.deleteConfig(taskId, configId);
  }

  /** Stores a configuration a send carried, on the task the send saved first; a failure is
   * logged (the send goes on). */
  async attach(taskId: string, config: PushConfig, at: string): Promise<void> {
    await this.set(taskId, config, at).catch((err: unknown) =>
      this.deps.log.warn({ task_id: taskId, err: (err as Error).message }, 'push notification configuration not stored'),
    );
  }

  /** Makes the notifications of a saved state in NOTIFY_STATES (one per configuration, once per
   * change). A store failure is logged: the task itself is saved. */
  async notify(change: TaskChange): Promise<void> {
    if (!NOTIFY_STATES.has(change.state)) return;
    try {
      this.notified(await this.deps.store.enqueue(change.taskId, eventKey(change), change.body));
    } catch (err) {
      this.deps.log.warn({ task_id: change.taskId, state: change.state, err: (err as Error).message }, 'push notification not written');
    }
  }

  /** `added` outbox rows were written (by the task store, with the task's state, D-110). */
  notified(added: number): void {
    if (added > 0) this.worker.kick();
  }

  start(): void {
    this.worker.start();
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
