// Push notifications for long tasks, independent of the A2A version that configures them
// (docs/a2a-conformance.md, "Push notifications"; D-89, D-90). A binding (a2a/push-rpc.ts for
// 0.3.0) checks who may touch the task, then calls this service to check, store, read and
// delete a task's configurations. The service makes the notifications: the task store it
// wraps (`taskStore`) writes one outbox row per configuration when a saved task reaches a state
// a client waits for (NOTIFY_STATES), after the task itself is written and before anything is
// sent; the worker (worker.ts) delivers the rows, on whichever replica claims them.
import type { Task, TaskState } from '@a2a-js/sdk';
import { ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { Logger } from 'pino';
import type { PushStore } from '../store/push-store.ts';
import { hostOf, MAX_CONFIGS_PER_TASK, parseConfig, PushInputError, type PushConfig } from './config.ts';
import type { PushSettings } from './settings.ts';
import { checkedAddresses, TargetRefusedError } from './target.ts';
import { PushWorker } from './worker.ts';

/** The states that make a notification: the end of a task, and a task waiting for its client. */
export const NOTIFY_STATES: ReadonlySet<TaskState> = new Set<TaskState>(['completed', 'failed', 'canceled', 'rejected', 'input-required', 'auth-required']);

export interface PushServiceDeps {
  store: PushStore;
  settings: PushSettings;
  replica: string;
  log: Pick<Logger, 'warn' | 'info' | 'debug'>;
}

export class PushService {
  readonly worker: PushWorker;
  /** The configuration a send carries, by the call context the SDK hands the task store with
   * each save of that request's task (`carry`); taken at the first save. */
  private readonly carried = new WeakMap<ServerCallContext, PushConfig>();

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

  /** The call context to hand the SDK for a send carrying `config`: the task that send saves
   * first gets it (before any notification of that task is made). */
  carry(context: ServerCallContext | undefined, config: PushConfig): ServerCallContext {
    const carrier = new ServerCallContext(context?.requestedExtensions, context?.user);
    this.carried.set(carrier, config);
    return carrier;
  }

  /** Makes the notifications of a saved task in a NOTIFY state (one per configuration, once per
   * state change). A store failure is logged: the task itself is saved. */
  async notify(task: Task): Promise<void> {
    if (!NOTIFY_STATES.has(task.status.state)) return;
    try {
      const added = await this.deps.store.enqueue(task.id, `${task.status.state}@${task.status.timestamp ?? ''}`, JSON.stringify(task));
      if (added > 0) this.worker.kick();
    } catch (err) {
      this.deps.log.warn({ task_id: task.id, state: task.status.state, err: (err as Error).message }, 'push notification not written');
    }
  }

  /** `inner` with the notifications made on each save (see the file's head). */
  taskStore(inner: TaskStore): TaskStore {
    return {
      save: async (task, context) => {
        await inner.save(task, context);
        const config = context && this.carried.get(context);
        if (!config) return this.notify(task);
        // The request's first save: a new task (`submitted`) or, for a send continuing a task,
        // the task as it was with the new message added, whose state was notified already.
        this.carried.delete(context);
        await this.set(task.id, config, 'params.configuration.pushNotificationConfig').catch((err: unknown) =>
          this.deps.log.warn({ task_id: task.id, err: (err as Error).message }, 'push notification configuration not stored'),
        );
      },
      load: (taskId, context) => inner.load(taskId, context),
    };
  }

  start(): void {
    this.worker.start();
  }

  close(): Promise<void> {
    return this.worker.close();
  }
}
