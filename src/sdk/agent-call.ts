// Calling another A2A agent from a graph node (docs/project-format.md, "Calling other
// agents"): the official @a2a-js/sdk client, through the runtime's outbound pool (ctx.fetch),
// as a span `node[agent:<name>]` in the run's timeline, with the child's failures mapped to
// the standard codes (spec 7.2). Called in parallel inside fanOut, the fan-out cap applies.
import crypto from 'node:crypto';
import { A2AClient } from '@a2a-js/sdk/client';
import type { Message, MessageSendParams, Part, Task, TaskStatusUpdateEvent, TaskArtifactUpdateEvent } from '@a2a-js/sdk';
import { getConfig } from '@langchain/langgraph';
import { AgentError, isErrorCode } from './errors.ts';
import { branchReporter } from './fanout.ts';
import { withCallScope } from './call-record.ts';

export interface CallAgentOptions {
  /** message/stream instead of message/send; each text chunk goes to `onText`. */
  stream?: boolean;
  onText?: (chunk: string) => void;
  /** The child conversation; default: one per (this conversation, that agent), see below. */
  contextId?: string;
  /** Answers the child's input-required question on that task. */
  taskId?: string;
  /** DataParts to send beside the text (each `data`; name its contract in `schema`). */
  data?: Record<string, unknown>[];
  metadata?: Record<string, unknown>;
  /** Gives up after this long (default 60 s): UPSTREAM_TIMEOUT. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** The span's label (default: the agent card's name). */
  label?: string;
}

export interface AgentCallResult {
  state: 'completed' | 'input-required';
  /** The answer's text parts, joined. */
  text: string;
  /** The answer's DataParts. */
  data: Record<string, unknown>[];
  /** The child's question when it asked for input (answer with `taskId`). */
  question?: string;
  taskId: string;
  contextId: string;
}

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * The child conversation of this conversation with `cardUrl`: the same on every turn (the
 * child remembers), different per child agent, and not the caller's own id (the child's
 * threads never mix with the caller's). A UUID derived from both.
 */
export function childContextId(parentContextId: string, cardUrl: string): string {
  const h = crypto.createHash('sha256').update(`${parentContextId}\n${cardUrl}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16], 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function parentContext(): string | undefined {
  try {
    const id = getConfig()?.configurable?.thread_id;
    return id === undefined || id === null ? undefined : String(id);
  } catch {
    return undefined;
  }
}

const textOf = (parts: Part[] = []) =>
  parts
    .filter((p): p is Extract<Part, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('');
const dataOf = (parts: Part[] = []) => parts.filter((p): p is Extract<Part, { kind: 'data' }> => p.kind === 'data').map((p) => p.data);

/** What a failed, canceled or refused child task means for the caller. */
function childFailure(task: Task, cardUrl: string): AgentError {
  const parts = task.status.message?.parts ?? [];
  const remote = dataOf(parts)[0] ?? dataOf(task.artifacts?.flatMap((a) => a.parts))[0] ?? {};
  const detail = { agent: cardUrl, task_id: task.id, remote };
  const state = task.status.state;
  if (state === 'failed') {
    // The child's own failure passes through: its code, reason and message.
    const code = isErrorCode(remote.errorCode) ? remote.errorCode : 'UPSTREAM_UNAVAILABLE';
    return new AgentError({
      code,
      reason: typeof remote.errorReason === 'string' ? remote.errorReason : 'child_agent_failed',
      message: typeof remote.errorMessage === 'string' ? remote.errorMessage : textOf(parts) || `The agent at ${cardUrl} failed.`,
      retriable: typeof remote.retriable === 'boolean' ? remote.retriable : undefined,
      detail,
    });
  }
  if (state === 'auth-required')
    return new AgentError({ code: 'AUTH_REQUIRED', reason: 'child_auth_required', message: `The agent at ${cardUrl} needs credentials.`, detail });
  return new AgentError({
    code: 'UPSTREAM_UNAVAILABLE',
    reason: `child_${state.replace(/-/g, '_')}`,
    message: `The agent at ${cardUrl} ended the task ${state}.`,
    detail,
  });
}

/** A transport or protocol failure of the call itself. */
function callFailure(err: unknown, cardUrl: string, timedOut: boolean): AgentError {
  if (err instanceof AgentError) return err;
  const e = err as { name?: string; message?: string; code?: number };
  if (e?.name === 'OutboundQueueTimeoutError') {
    return new AgentError({
      code: 'UPSTREAM_TIMEOUT',
      reason: 'outbound_pool_busy',
      message: e.message ?? 'Every outbound connection stayed busy.',
      detail: { agent: cardUrl },
    });
  }
  if (timedOut || e?.name === 'TimeoutError') {
    return new AgentError({
      code: 'UPSTREAM_TIMEOUT',
      reason: 'child_agent_timeout',
      message: `The agent at ${cardUrl} did not answer in time.`,
      detail: { agent: cardUrl },
    });
  }
  return new AgentError({
    code: 'UPSTREAM_UNAVAILABLE',
    reason: 'child_agent_unreachable',
    message: `The agent at ${cardUrl} could not be reached: ${e?.message ?? String(err)}`,
    detail: { agent: cardUrl },
  });
}

/** A JSON-RPC error answered by the child. */
function rpcFailure(error: { code: number; message: string }, cardUrl: string): AgentError {
  const detail = { agent: cardUrl, rpc_code: error.code };
  if (error.code === -32001) return new AgentError({ code: 'NOT_FOUND', reason: 'child_task_not_found', message: error.message, detail });
  if (error.code === -32602) return new AgentError({ code: 'INVALID_INPUT', reason: 'child_rejected_input', message: error.message, detail });
  return new AgentError({
    code: 'UPSTREAM_UNAVAILABLE',
    reason: 'child_agent_error',
    message: `The agent at ${cardUrl} answered an error: ${error.message}`,
    detail,
  });
}

/**
 * Sends `text` (and `options.data`) to the A2A agent whose card is at `cardUrl` and waits
 * for its answer. Completed: the text and DataParts. Input required: its question (answer it
 * with `taskId`). Anything else throws an AgentError with a standard code.
 */
export async function callAgent(ctx: { fetch?: Fetch }, cardUrl: string, text: string, options: CallAgentOptions = {}): Promise<AgentCallResult> {
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 60_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const base: Fetch = ctx.fetch ?? fetch;
  const fetchImpl = ((input: string | URL | Request, init?: RequestInit) =>
    // Recorded (and replayed) as calls of kind `agent` (call-record.ts, D-92).
    withCallScope({ kind: 'agent' }, () => base(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, signal]) : signal }))) as typeof fetch;
  const parent = parentContext();
  const contextId = options.contextId ?? (parent ? childContextId(parent, cardUrl) : crypto.randomUUID());
  const report = branchReporter(signal);
  let spanId: string | undefined;
  try {
    const client = await A2AClient.fromCardUrl(cardUrl, { fetchImpl });
    const card = await client.getAgentCard();
    spanId = report?.start(`agent-${crypto.randomBytes(3).toString('hex')}`, `agent:${options.label ?? card.name}`);
    const message: Message = {
      kind: 'message',
      role: 'user',
      messageId: crypto.randomUUID(),
      contextId,
      ...(options.taskId ? { taskId: options.taskId } : {}),
      parts: [{ kind: 'text', text }, ...(options.data ?? []).map((data): Part => ({ kind: 'data', data }))],
    };
    const params: MessageSendParams = { message, ...(options.metadata ? { metadata: options.metadata } : {}) };
    let task: Task | undefined;
    if (options.stream) {
      for await (const event of client.sendMessageStream(params)) {
        if (event.kind === 'task') task = event;
        else if (event.kind === 'status-update') task = applyStatus(task, event);
        else if (event.kind === 'artifact-update') {
          if (event.append) options.onText?.(textOf(event.artifact.parts));
          task = applyArtifact(task, event);
        } else if (event.kind === 'message') task = { kind: 'task', id: event.taskId ?? '', contextId, status: { state: 'completed', message: event } };
      }
    } else {
      const res = await client.sendMessage(params);
      if ('error' in res && res.error) throw rpcFailure(res.error, cardUrl);
      const result = (res as { result: Task | Message }).result;
      task =
        result.kind === 'task'
          ? result
          : {
              kind: 'task',
              id: result.taskId ?? '',
              contextId,
              status: { state: 'completed', message: result },
              artifacts: [{ artifactId: 'message', parts: result.parts }],
            };
    }
    if (!task)
      throw new AgentError({
        code: 'UPSTREAM_UNAVAILABLE',
        reason: 'child_agent_error',
        message: `The agent at ${cardUrl} ended the stream without a task.`,
        detail: { agent: cardUrl },
      });
    const parts = task.artifacts?.flatMap((a) => a.parts) ?? [];
    let result: AgentCallResult;
    if (task.status.state === 'completed') {
      result = { state: 'completed', text: textOf(parts), data: dataOf(parts), taskId: task.id, contextId: task.contextId ?? contextId };
    } else if (task.status.state === 'input-required') {
      const asked = task.status.message?.parts ?? [];
      result = {
        state: 'input-required',
        text: textOf(parts),
        data: dataOf(asked),
        question: textOf(asked),
        taskId: task.id,
        contextId: task.contextId ?? contextId,
      };
    } else throw childFailure(task, cardUrl);
    if (spanId) report!.end(spanId);
    return result;
  } catch (err) {
    const failure = callFailure(err, cardUrl, timeout.aborted);
    if (spanId) report!.end(spanId, failure);
    throw failure;
  }
}

function applyStatus(task: Task | undefined, e: TaskStatusUpdateEvent): Task {
  const base: Task = task ?? { kind: 'task', id: e.taskId, contextId: e.contextId, status: e.status, artifacts: [] };
  return { ...base, status: e.status };
}

function applyArtifact(task: Task | undefined, e: TaskArtifactUpdateEvent): Task {
  const base: Task = task ?? { kind: 'task', id: e.taskId, contextId: e.contextId, status: { state: 'working' }, artifacts: [] };
  const artifacts = [...(base.artifacts ?? [])];
  const i = artifacts.findIndex((a) => a.artifactId === e.artifact.artifactId);
  if (i < 0) artifacts.push(e.artifact);
  else artifacts[i] = e.append ? { ...artifacts[i], parts: [...artifacts[i].parts, ...e.artifact.parts] } : e.artifact;
  return { ...base, artifacts };
}
