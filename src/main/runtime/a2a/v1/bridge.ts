// The request handler the 1.x SDK's transports call for A2A 1.0 (D-86): each call in 0.3
// shapes (convert.ts) to the runtime's own handler, so a 1.0 request gets the same checks
// (send-admission.ts, ownership.ts), executor, task store and replica answers as a 0.3 one.
// ListTasks, which 0.3 has not, reads the store's page of the agent's tasks (D-87); the push
// notification configuration methods reach the 0.3 handler's own (push.ts, D-104).
import { ServerCallContext as Context03, type A2ARequestHandler as Handler03 } from '@a2a-js/sdk/server';
import type { Task as Task03 } from '@a2a-js/sdk';
import { STATE_HEADERS_KEY, type A2ARequestHandler, type ServerCallContext } from 'a2a-sdk-1/server';
import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
} from 'a2a-sdk-1';
import type { Message, Task, TaskPushNotificationConfig, ListTaskPushNotificationConfigsResponse } from 'a2a-sdk-1';
import { ExtendedAgentCardNotConfiguredError, RequestMalformedError, UnsupportedOperationError } from 'a2a-sdk-1/errors';
import type { IncomingHttpHeaders } from 'node:http';
import { PrincipalUser, principalOf } from '../../auth/principal.ts';
import { changes, FOLLOW_POLL_MS, statusEvent } from '../follow.ts';
import { limitHistory } from '../history.ts';
import { hangupSignal } from './hangup.ts';
import { RpcInputError, validateMessage, validateSendParams } from '../request-meta.ts';
import { admitSend, RequestUser, type AdmitOptions, type RequestMeta } from '../send-admission.ts';
import type { TaskListPage, TaskListQuery } from '../../store/task-list.ts';
import { eventToV1, messageToV1, sendToV03, stateToV03, taskToV1 } from './convert.ts';
import { toV1Error } from './errors.ts';
import { markVersion } from '../push-rpc.ts';
import { configToV03, configToV1, pushErrorV1, PUSH_VERSION_V1, requiredIds } from './push.ts';

export interface BridgeDeps {
  /** The runtime's 0.3 handler (ReplicaAwareRequestHandler). */
  handler: Handler03;
  /** The served 1.0 card (card.ts). */
  card: () => AgentCard;
  admit: AdmitOptions;
  listTasks: (query: TaskListQuery) => Promise<TaskListPage>;
  /** Counts a request by the 0.3 name of its method, as the 0.3 gate does. */
  onRequest: (method: string) => void;
}

const TERMINAL = new Set(['completed', 'failed', 'canceled', 'rejected']);
const DEFAULT_PAGE = 50;
const MAX_PAGE = 100;

/** The 0.3 call context of a 1.0 call: the same principal (auth/principal.ts), for a send the
 * metadata its admission gave the executor (send-admission.ts), and marked as 1.0's, so a push
 * configuration it stores is notified in 1.0's shape (D-104). */
function context03(context: ServerCallContext, meta?: RequestMeta): Context03 {
  const user = context.user instanceof PrincipalUser ? context.user : undefined;
  return markVersion(new Context03(undefined, user && meta ? new RequestUser(user.principal, meta) : user), PUSH_VERSION_V1);
}

function headersOf(context: ServerCallContext): IncomingHttpHeaders {
  return (context.state.get(STATE_HEADERS_KEY) as IncomingHttpHeaders | undefined) ?? {};
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toV1Error(err);
  }
}

async function pushCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw pushErrorV1(err);
  }
}

async function* stream<T, U = StreamResponse>(events: AsyncGenerator<T>, map: (e: T) => U): AsyncGenerator<U, void, undefined> {
  try {
    for await (const e of events) yield map(e);
  } catch (err) {
    throw toV1Error(err);
  }
}

function pageOffset(token: string): number {
  if (!token) return 0;
  const n = Number(Buffer.from(token, 'base64url').toString('utf8'));
  if (!Number.isInteger(n) || n < 0) throw new RequestMalformedError({ message: 'Invalid params: pageToken is not a token this server gave' });
  return n;
}

export class V1Bridge implements A2ARequestHandler {
  constructor(private readonly deps: BridgeDeps) {}

  async getAgentCard(): Promise<AgentCard> {
    return this.deps.card();
  }

  /** GetExtendedAgentCard: the card, when it says there is one (with caller authentication,
   * D-77); else ExtendedAgentCardNotConfiguredError, as spec 1.0 section 3.3.4 asks. */
  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    const card = this.deps.card();
    if (!card.capabilities?.extendedAgentCard) throw new ExtendedAgentCardNotConfiguredError();
    return card;
  }

  /** SendMessage's params as message/send's, checked and admitted like a 0.3 send. */
  private async admitted(req: SendMessageRequest, context: ServerCallContext, stream: boolean) {
    this.deps.onRequest(stream ? 'message/stream' : 'message/send');
    const params = sendToV03(req);
    try {
      validateSendParams(params as unknown as Record<string, unknown>);
      validateMessage(params.message);
    } catch (err) {
      if (err instanceof RpcInputError) throw new RequestMalformedError({ message: err.message });
      throw err;
    }
    const admitted = await call(() => admitSend(headersOf(context), params as unknown as Record<string, unknown>, stream, this.deps.admit));
    if ('refusal' in admitted) throw new RequestMalformedError({ message: admitted.refusal.message });
    return { params, context: context03(context, admitted.meta) };
  }

  async sendMessage(req: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const { params, context: ctx } = await this.admitted(req, context, false);
    const result = await call(() => this.deps.handler.sendMessage(params, ctx));
    return result.kind === 'task' ? taskToV1(result) : messageToV1(result);
  }

  async *sendMessageStream(req: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const { params, context: ctx } = await this.admitted(req, context, true);
    yield* stream(this.deps.handler.sendMessageStream(params, ctx), eventToV1);
  }

  async getTask(req: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    this.deps.onRequest('tasks/get');
    if (req.historyLength !== undefined && req.historyLength < 0)
      throw new RequestMalformedError({ message: 'Invalid params: historyLength must be a non-negative integer' });
    const params = { id: req.id, ...(req.historyLength !== undefined ? { historyLength: req.historyLength } : {}) };
    return taskToV1(await call(() => this.deps.handler.getTask(params, context03(context))));
  }

  async cancelTask(req: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    this.deps.onRequest('tasks/cancel');
    return taskToV1(await call(() => this.deps.handler.cancelTask({ id: req.id }, context03(context))));
  }

  /** SubscribeToTask (spec 1.0 section 3.1.6): UnsupportedOperationError on a terminal task;
   * else the task, then its events until a terminal state. The 0.3 stream also ends when the
   * task waits for input (input-required, auth-required); from there the stored task is
   * followed (follow.ts) until it ends or the client hangs up. */
  async *resubscribe(req: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    this.deps.onRequest('tasks/resubscribe');
    const ctx = context03(context);
    const load = () => call(() => this.deps.handler.getTask({ id: req.id }, ctx));
    if (TERMINAL.has((await load()).status.state)) throw new UnsupportedOperationError({ message: `Task ${req.id} is in a terminal state` });
    let state: string | undefined;
    for await (const e of stream(this.deps.handler.resubscribe({ id: req.id }, ctx), (e) => e)) {
      if (e.kind === 'task' || e.kind === 'status-update') state = e.status.state;
      yield eventToV1(e);
    }
    const hangup = hangupSignal(headersOf(context));
    let seen = await load();
    if (seen.status.state !== state) yield eventToV1(statusEvent(seen));
    while (!TERMINAL.has(seen.status.state) && !hangup.aborted) {
      await new Promise((r) => setTimeout(r, FOLLOW_POLL_MS));
      const now = await load();
      for (const e of changes(seen, now)) yield eventToV1(e);
      seen = now;
    }
  }

  /** ListTasks (D-87): the caller's own tasks only (ownership.ts); without authentication every task of the agent. */
  async listTasks(req: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    this.deps.onRequest('ListTasks');
    const bad = (field: string, why: string) => new RequestMalformedError({ message: `Invalid params: ${field} ${why}` });
    const pageSize = req.pageSize ?? DEFAULT_PAGE;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) throw bad('pageSize', `must be between 1 and ${MAX_PAGE}`);
    if (req.historyLength !== undefined && req.historyLength < 0) throw bad('historyLength', 'must be a non-negative integer');
    const offset = pageOffset(req.pageToken);
    const principal = principalOf(context03(context));
    const page = await call(() =>
      this.deps.listTasks({
        ...(principal.scheme !== 'none' ? { user: principal.name } : {}),
        ...(req.contextId ? { contextId: req.contextId } : {}),
        ...(stateToV03(req.status) ? { state: stateToV03(req.status) } : {}),
        ...(req.statusTimestampAfter ? { updatedAfter: new Date(req.statusTimestampAfter).toISOString() } : {}),
        limit: pageSize,
        offset,
      }),
    );
    const next = offset + page.tasks.length;
    const shown = (t: Task03) => {
      const limited = limitHistory(t, req.historyLength);
      return taskToV1(req.includeArtifacts ? limited : { ...limited, artifacts: [] });
    };
    return {
      tasks: page.tasks.map(shown),
      nextPageToken: next < page.total ? Buffer.from(String(next)).toString('base64url') : '',
      pageSize,
      totalSize: page.total,
    };
  }

  /** CreateTaskPushNotificationConfig: 0.3's tasks/pushNotificationConfig/set (push-rpc.ts). */
  async createTaskPushNotificationConfig(req: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    this.deps.onRequest('tasks/pushNotificationConfig/set');
    const params = { taskId: req.taskId, pushNotificationConfig: configToV03(req) };
    return configToV1(await pushCall(() => this.deps.handler.setTaskPushNotificationConfig(params, context03(context))));
  }

  async getTaskPushNotificationConfig(req: GetTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    this.deps.onRequest('tasks/pushNotificationConfig/get');
    requiredIds(req);
    const params = { id: req.taskId, pushNotificationConfigId: req.id };
    return configToV1(await pushCall(() => this.deps.handler.getTaskPushNotificationConfig(params, context03(context))));
  }

  /** ListTaskPushNotificationConfigs: every configuration in one page (a task has at most
   * MAX_CONFIGS_PER_TASK, push/config.ts). */
  async listTaskPushNotificationConfigs(
    req: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    this.deps.onRequest('tasks/pushNotificationConfig/list');
    const configs = await pushCall(() => this.deps.handler.listTaskPushNotificationConfigs({ id: req.taskId }, context03(context)));
    return { configs: configs.map(configToV1), nextPageToken: '' };
  }

  async deleteTaskPushNotificationConfig(req: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<void> {
    this.deps.onRequest('tasks/pushNotificationConfig/delete');
    requiredIds(req);
    await pushCall(() => this.deps.handler.deleteTaskPushNotificationConfig({ id: req.taskId, pushNotificationConfigId: req.id }, context03(context)));
  }
}
