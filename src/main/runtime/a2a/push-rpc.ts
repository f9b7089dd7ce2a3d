// The push-notification methods of A2A 0.3.0's JSON-RPC binding (tasks/pushNotificationConfig/
// set, get, list, delete) and message/send's configuration.pushNotificationConfig, on the
// version-independent push service (push/service.ts; docs/a2a-conformance.md, "Push
// notifications"). Each method checks its params (-32602 naming error.data.field), then the
// task as the acting principal sees it (ownership.ts: another user's task is TaskNotFoundError,
// -32001, as an unknown id is), then the callback URL's addresses, then acts. The task store
// the SDK's handler saves through (`pushingTaskStore`) tells the service each saved state.
import { A2AError, ServerCallContext, type TaskStore } from '@a2a-js/sdk/server';
import type { MessageSendParams, Task, TaskPushNotificationConfig } from '@a2a-js/sdk';
import { PushInputError, type PushConfig } from '../push/config.ts';
import { eventKey, NOTIFY_STATES, type PushService, type TaskChange } from '../push/service.ts';
import { JSONRPC } from './request-meta.ts';

export interface PushRpcDeps {
  push: PushService;
  /** The task as the caller sees it (undefined: not there, or another user's). */
  load(taskId: string): Promise<Task | undefined>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function invalid(field: string, message: string): A2AError {
  return new A2AError(JSONRPC.INVALID_PARAMS, message, { field });
}

/** A PushInputError as its JSON-RPC error; anything else as thrown. */
async function asRpc<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PushInputError) throw invalid(err.field, err.message);
    throw err;
  }
}

function requiredString(params: unknown, key: string, what: string): string {
  const v = isObject(params) ? params[key] : undefined;
  if (typeof v !== 'string' || !v) throw invalid(`params.${key}`, `Invalid params: params.${key} (${what}) is required and must be a non-empty string`);
  return v;
}

function optionalString(params: unknown, key: string): string | undefined {
  const v = isObject(params) ? params[key] : undefined;
  if (v !== undefined && (typeof v !== 'string' || !v)) throw invalid(`params.${key}`, `Invalid params: params.${key} must be a non-empty string`);
  return v as string | undefined;
}

async function visibleTask(deps: PushRpcDeps, taskId: string): Promise<void> {
  if (!(await deps.load(taskId))) throw A2AError.taskNotFound(taskId);
}

/** The call contexts of requests made over another A2A version than 0.3 (the 1.0 bridge marks
 * them), by that version: a configuration they store records it (D-104). */
const spoken = new WeakMap<ServerCallContext, string>();

export function markVersion(context: ServerCallContext, version: string): ServerCallContext {
  spoken.set(context, version);
  return context;
}

function versioned(config: PushConfig, context: ServerCallContext | undefined): PushConfig {
  const version = context && spoken.get(context);
  return version ? { ...config, version } : config;
}

const shown = (taskId: string, { version: _version, ...config }: PushConfig): TaskPushNotificationConfig => ({ taskId, pushNotificationConfig: config });

export function setConfig(deps: PushRpcDeps, params: unknown, context?: ServerCallContext): Promise<TaskPushNotificationConfig> {
  return asRpc(async () => {
    const taskId = requiredString(params, 'taskId', 'the task id');
    const input = (params as Record<string, unknown>).pushNotificationConfig;
    if (!isObject(input)) throw invalid('params.pushNotificationConfig', 'Invalid params: params.pushNotificationConfig is required and must be an object');
    await visibleTask(deps, taskId);
    const config = await deps.push.check(input, 'params.pushNotificationConfig', taskId);
    return shown(taskId, await deps.push.set(taskId, versioned(config, context), 'params.pushNotificationConfig'));
  });
}

export function getConfig(deps: PushRpcDeps, params: unknown): Promise<TaskPushNotificationConfig> {
  return asRpc(async () => {
    const taskId = requiredString(params, 'id', 'the task id');
    const configId = optionalString(params, 'pushNotificationConfigId') ?? taskId;
    await visibleTask(deps, taskId);
    const config = await deps.push.get(taskId, configId);
    if (!config)
      throw invalid('params.pushNotificationConfigId', `Invalid params: task ${taskId} has no push notification configuration '${configId.slice(0, 256)}'`);
    return shown(taskId, config);
  });
}

export function listConfigs(deps: PushRpcDeps, params: unknown): Promise<TaskPushNotificationConfig[]> {
  return asRpc(async () => {
    const taskId = requiredString(params, 'id', 'the task id');
    await visibleTask(deps, taskId);
    return (await deps.push.list(taskId)).map((c) => shown(taskId, c));
  });
}

/** Deleting a configuration that is not there is not an error (the result is the same). */
export function deleteConfig(deps: PushRpcDeps, params: unknown): Promise<void> {
  return asRpc(async () => {
    const taskId = requiredString(params, 'id', 'the task id');
    const configId = optionalString(params, 'pushNotificationConfigId') ?? taskId;
    await visibleTask(deps, taskId);
    await deps.push.delete(taskId, configId);
  });
}

/** message/send and message/stream: the checked configuration the send carries, or null. */
export function sendConfig(push: PushService, params: MessageSendParams, context?: ServerCallContext): Promise<PushConfig | null> | null {
  const input = params.configuration?.pushNotificationConfig;
  // null, not a promise, for a send without one (most): the caller awaits nothing (D-114).
  if (input === undefined) return null;
  return asRpc(async () => versioned(await push.check(input, 'params.configuration.pushNotificationConfig', ''), context));
}

/** The configuration a send carries, by the call context the SDK hands the task store with each
 * save of that request's task (`sendContext`); taken at the first save. */
const carried = new WeakMap<ServerCallContext, PushConfig>();

/** The context a send hands the SDK: carrying its configuration when it has one. */
export function sendContext(context: ServerCallContext | undefined, config: PushConfig | null): ServerCallContext | undefined {
  if (!config) return context;
  const carrier = new ServerCallContext(context?.requestedExtensions, context?.user);
  carried.set(carrier, config);
  return carrier;
}

export function taskChange(task: Task): TaskChange {
  return { taskId: task.id, state: task.status.state, at: task.status.timestamp ?? '', body: JSON.stringify(task) };
}

/** A task store that writes a state's notification (outbox rows, one per configuration of the
 * task, event key `key`) with the state itself; resolves to how many rows it added. */
export interface NotifyingTaskStore {
  saveNotifying(task: Task, key: string): Promise<number>;
}

/** `inner` telling the push service each saved task (after it is written). The save that takes
 * a send's configuration is the request's first: a new task (`submitted`) or, for a send
 * continuing a task, the task as it was with the new message added, whose state was notified
 * already; it stores the configuration and notifies nothing. */
export function pushingTaskStore(push: PushService, inner: TaskStore & Partial<NotifyingTaskStore>): TaskStore {
  const notifying = async (task: Task, context: ServerCallContext | undefined): Promise<void> => {
    // A store that writes the notification with the task's state (PostgreSQL: one statement, D-110).
    if (inner.saveNotifying) return push.notified(await inner.saveNotifying(task, eventKey({ state: task.status.state, at: task.status.timestamp ?? '' })));
    await inner.save(task, context);
    return push.notify(taskChange(task));
  };
  const configuring = async (task: Task, context: ServerCallContext, config: PushConfig): Promise<void> => {
    await inner.save(task, context);
    carried.delete(context);
    await push.attach(task.id, config, 'params.configuration.pushNotificationConfig');
  };
  return {
    save: (task, context) => {
      const config = context && carried.get(context);
      if (config) return configuring(task, context, config);
      // A state no client waits for (submitted, working) makes no notification: the save as it is (D-114).
      return NOTIFY_STATES.has(task.status.state) ? notifying(task, context) : inner.save(task, context);
    },
    load: (taskId, context) => inner.load(taskId, context),
  };
}
