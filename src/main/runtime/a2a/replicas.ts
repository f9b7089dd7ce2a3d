// What the A2A handler does for a task that runs on another replica (docs/deployment.md,
// "Replicas"). The database is the source of truth; nothing here elects or coordinates.
//   - tasks/cancel: the run is in another process, so this one cannot abort it. The request
//     is a flag in the task's row; the running replica sees it at its next lease renewal
//     (TASK_LEASE_MS / 3), cancels the run the usual way, and this call answers with the
//     task once it is `canceled` (or TaskNotCancelable if it ended otherwise meanwhile).
//   - tasks/resubscribe: the live events exist only where the task runs. With cluster control
//     (CLUSTER_CONTROL=nats) the running replica streams them here through NATS, and the task
//     row is watched beside them, so a subscriber hears the end (failed, replica_lost) of a
//     task whose replica died; without cluster control (or when no replica answers), the row
//     is followed (follow.ts). Either way the stream ends with the final status.
// Every method checks whose conversation it touches first (ownership.ts, docs/security.md):
// the cross-replica paths below act only after that check, on the shared table.
// The same handler answers historyLength on tasks/get, message/send and message/stream the
// A2A 1.0 way (history.ts), in place of the SDK's reading, and a store outage as the JSON-RPC
// error of a2a/store-outage.ts (never the driver's message, which names the database's address).
import { A2AError, DefaultRequestHandler, type AgentExecutor, type ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type {
  AgentCard,
  DeleteTaskPushNotificationConfigParams,
  GetTaskPushNotificationConfigParams,
  ListTaskPushNotificationConfigParams,
  Message,
  MessageSendParams,
  Task,
  TaskIdParams,
  TaskPushNotificationConfig,
  TaskQueryParams,
  TaskStatusUpdateEvent,
  TaskArtifactUpdateEvent,
} from '@a2a-js/sdk';
import type { ClusterControl } from '../cluster/control.ts';
import { followStored, untilSettled } from './follow.ts';
import { limitHistory } from './history.ts';
import { actingContext, checkSend, ownedTaskStore, type OwnershipStore } from './ownership.ts';
import { principalOf } from '../auth/principal.ts';
import { rpcError, storeUnavailableRpc } from './store-outage.ts';
import { SettlingTaskStore } from './settling.ts';
import { card03WithInterfaces } from './v1/card.ts';
import type { PushService } from '../push/service.ts';
import { deleteConfig, getConfig, listConfigs, sendConfig, sendContext, setConfig, type PushRpcDeps } from './push-rpc.ts';

/** A store outage as its JSON-RPC error (store-outage.ts); anything else as thrown. */
function rethrow(err: unknown): never {
  throw rpcError(err);
}

const FINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);

/** The shared task table as the replicas see it (both stores hold leases). */
export interface SharedTasks {
  /** The replica running a task in progress, or null. */
  runningReplica(taskId: string): Promise<string | null>;
  /** Flags the task's row for a cancel, seen by its replica at the next lease renewal. */
  requestCancel(taskId: string): Promise<boolean>;
  load(taskId: string): Promise<Task | undefined>;
}

export interface ReplicaView {
  /** The shared task store's view of where tasks run. */
  tasks: SharedTasks;
  replica: string;
  leaseMs: number;
  /** Whether this process runs the task. */
  runsHere(taskId: string): boolean;
  /** Cluster control through NATS, when on: instant cancel and resubscribe across replicas. */
  control: Pick<ClusterControl, 'publish' | 'follow' | 'connected'> | null;
}

/** Who owns what: the store's ownership records and this runtime's agent id. */
export interface OwnershipView {
  store: OwnershipStore;
  agentId: string;
}

export class ReplicaAwareRequestHandler extends DefaultRequestHandler {
  /** The task store as the calling principal sees it (ownership.ts). */
  private readonly store: TaskStore;
  /** Whether a save of the task failed (settling.ts): then no answer or event claims it. */
  private readonly lost: (taskId: string) => boolean;

  /** `replicas`: the cross-replica answers on the shared store; null when there is none.
   * `push`: push notifications (push/service.ts), which this handler serves itself: the SDK is
   * handed the card as if it had none, so that it neither stores configurations in memory nor
   * reads the task back on every event to send them. */
  constructor(
    private readonly card: AgentCard,
    store: TaskStore,
    executor: AgentExecutor,
    private readonly replicas: ReplicaView | null,
    private readonly ownership: OwnershipView,
    private readonly push: PushService,
  ) {
    const owned = ownedTaskStore(store, ownership.store, ownership.agentId);
    super(withoutSdkPush(card), owned, executor);
    this.store = owned;
    this.lost = store instanceof SettlingTaskStore ? (id) => store.lost(id) : () => false;
  }

  /** agent/getAuthenticatedExtendedCard (D-77): the served card. The method is behind the
   * callers' credentials when they are configured (auth/middleware.ts); there is nothing more
   * to show an authenticated caller today, and without caller authentication the card is
   * public anyway, so the answer is the card rather than "unsupported". */
  override async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return card03WithInterfaces(this.card);
  }

  /** The push methods' view: the service, and the task as the acting principal sees it. */
  private pushDeps(params: unknown, context: ServerCallContext | undefined): PushRpcDeps {
    const metadata = typeof params === 'object' && params !== null ? (params as { metadata?: unknown }).metadata : undefined;
    const acting = actingContext(context, metadata);
    return { push: this.push, load: (id) => this.store.load(id, acting).catch(rethrow) };
  }

  override setTaskPushNotificationConfig(params: TaskPushNotificationConfig, context?: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return setConfig(this.pushDeps(params, context), params, context).catch(rethrow);
  }

  override getTaskPushNotificationConfig(
    params: TaskIdParams | GetTaskPushNotificationConfigParams,
    context?: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return getConfig(this.pushDeps(params, context), params).catch(rethrow);
  }

  override listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigParams, context?: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    return listConfigs(this.pushDeps(params, context), params).catch(rethrow);
  }

  override deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigParams, context?: ServerCallContext): Promise<void> {
    return deleteConfig(this.pushDeps(params, context), params).catch(rethrow);
  }

  /** The stored task with its history limited by historyLength (history.ts). */
  override async getTask(params: TaskQueryParams, context?: ServerCallContext): Promise<Task> {
    const task = await this.store.load(params.id, actingContext(context, params.metadata)).catch(rethrow);
    if (!task) throw A2AError.taskNotFound(params.id);
    return limitHistory(task, params.historyLength);
  }

  override async sendMessage(params: MessageSendParams, context?: ServerCallContext): Promise<Message | Task> {
    try {
      const checking = sendConfig(this.push, params, context);
      const push = checking && (await checking);
      const acting = sendContext(await checkSend(params, context, this.ownership.store, this.ownership.agentId), push);
      const result = await super.sendMessage(params, acting);
      if (result.kind === 'task' && this.lost(result.id)) throw storeUnavailableRpc();
      return limitHistory(result, params.configuration?.historyLength);
    } catch (err) {
      return rethrow(err);
    }
  }

  override async *sendMessageStream(
    params: MessageSendParams,
    context?: ServerCallContext,
  ): AsyncGenerator<Message | Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent, void, undefined> {
    try {
      const checking = sendConfig(this.push, params, context);
      const push = checking && (await checking);
      const acting = sendContext(await checkSend(params, context, this.ownership.store, this.ownership.agentId), push);
      const historyLength = params.configuration?.historyLength;
      for await (const event of super.sendMessageStream(params, acting)) {
        if (this.lost(event.kind === 'task' ? event.id : event.kind === 'message' ? '' : event.taskId)) throw storeUnavailableRpc();
        yield event.kind === 'task' ? limitHistory(event, historyLength) : event;
      }
    } catch (err) {
      rethrow(err);
    }
  }

  /** The acting principal's context; for an authenticated caller, TaskNotFoundError unless the
   * task is there for it (another user's task answers as an unknown id). */
  private async visible(params: TaskIdParams, context: ServerCallContext | undefined): Promise<ServerCallContext | undefined> {
    const acting = actingContext(context, params.metadata);
    if (principalOf(acting).scheme !== 'none' && !(await this.store.load(params.id, acting))) throw A2AError.taskNotFound(params.id);
    return acting;
  }

  /** The replica running `taskId` when it is not this one. */
  private async elsewhere(taskId: string): Promise<string | null> {
    const r = this.replicas;
    if (!r || r.runsHere(taskId)) return null;
    const replica = await r.tasks.runningReplica(taskId);
    return replica && replica !== r.replica ? replica : null;
  }

  override async cancelTask(params: TaskIdParams, callContext?: ServerCallContext): Promise<Task> {
    const task = await this.cancelHere(params, callContext).catch(rethrow);
    if (this.lost(params.id)) throw storeUnavailableRpc();
    return task;
  }

  private async cancelHere(params: TaskIdParams, callContext?: ServerCallContext): Promise<Task> {
    const context = await this.visible(params, callContext);
    const replica = await this.elsewhere(params.id);
    if (!replica || !this.replicas) return super.cancelTask(params, context);
    const { tasks, leaseMs } = this.replicas;
    await tasks.requestCancel(params.id);
    // With cluster control the running replica hears of it at once; the row is the fallback.
    this.replicas.control?.publish({ op: 'cancel', task_id: params.id });
    const deadline = Date.now() + leaseMs + 1_000;
    for (;;) {
      const task = await tasks.load(params.id);
      if (!task) throw A2AError.taskNotFound(params.id);
      if (task.status.state === 'canceled') return task;
      if (FINAL.has(task.status.state)) throw A2AError.taskNotCancelable(params.id);
      if (Date.now() > deadline) {
        throw A2AError.internalError(`task ${params.id} runs on replica ${replica}, which did not confirm the cancel in time; it is still asked to cancel`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  override async *resubscribe(
    params: TaskIdParams,
    callContext?: ServerCallContext,
  ): AsyncGenerator<Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent, void, undefined> {
    try {
      yield* this.follow(params, callContext);
    } catch (err) {
      rethrow(err);
    }
  }

  private async *follow(
    params: TaskIdParams,
    callContext?: ServerCallContext,
  ): AsyncGenerator<Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent, void, undefined> {
    const context = await this.visible(params, callContext);
    const replica = await this.elsewhere(params.id);
    const r = this.replicas;
    if (!replica || !r) {
      yield* super.resubscribe(params, context);
      return;
    }
    const load = () => r.tasks.load(params.id);
    const stop = new AbortController();
    try {
      // The replica running the task streams its events here through NATS; the row ends the
      // stream if that replica dies.
      const live = r.control?.connected ? await r.control.follow(params.id, undefined, stop.signal) : null;
      if (live) {
        yield* untilSettled(live, load);
        return;
      }
      const first = await load();
      if (!first) throw A2AError.taskNotFound(params.id);
      yield* followStored(load, first);
    } finally {
      stop.abort();
    }
  }
}

/** The card as the SDK's handler sees it: every field live (the url changes at run time), but
 * no push notifications (this handler serves them). */
function withoutSdkPush(card: AgentCard): AgentCard {
  return new Proxy(card, {
    get: (target, key) => (key === 'capabilities' ? { ...target.capabilities, pushNotifications: false } : Reflect.get(target, key)),
  });
}
