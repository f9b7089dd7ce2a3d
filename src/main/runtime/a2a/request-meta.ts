// The JSON-RPC front door, before the A2A SDK sees a request: standard JSON-RPC errors for
// input rejected before an A2A envelope exists (spec 4.1 rule 7), file-part rules (rule 3),
// and the per-request metadata the SDK does not hand to executors (params.metadata).
import type { RequestHandler } from 'express';
import { noteRequest } from '../observability/request-context.ts';

import { captureTokenOf, RESERVED_CAPTURE_KEY } from '../../../shared/runtime-contract.ts';
import { takeContinueKey } from './continue-key.ts';
import { DebugControlSchema, RESERVED_DEBUG_KEY, type DebugControl } from '../../../shared/breakpoints.ts';
import { hasControlCredential } from './control-credential.ts';
import { REPLAY_METADATA_KEY, ReplayPlanSchema, type ReplayPlan } from '../../../shared/recordings.ts';
import { takeMocks } from './request-mocks.ts';
import type { MockPlan } from '../../../shared/mocks.ts';

export { RESERVED_CAPTURE_KEY };
export const OBSERVATION_LABEL_KEYS = ['userId', 'agentId', 'agentName', 'workflowId', 'workflowName', 'chatbotId', 'chatbotName'] as const;

export const JSONRPC = { PARSE_ERROR: -32700, INVALID_REQUEST: -32600, METHOD_NOT_FOUND: -32601, INVALID_PARAMS: -32602, INTERNAL_ERROR: -32603 } as const;

export interface RequestMeta {
  /** params.metadata without reserved keys. */
  metadata: Record<string, unknown>;
  history: unknown;
  captureToken: string | null;
  /** Per-request overrides handed to the graph's configurable (scriptedDelayMs, scriptedChunks). */
  configurable: Record<string, unknown>;
  /** message/stream (or a non-blocking send, which tasks/resubscribe may follow): the client
   * wants the exit node's text as it is produced. A blocking message/send only gets the final
   * task, so the runtime does not ask the graph for token deltas. */
  streaming: boolean;
  /** The studio's reserved continue key (continue-key.ts): the turn continues the thread from
   * its latest checkpoint with no new input. */
  fromCheckpoint?: boolean;
  /** Breakpoints, step mode or a continue from the studio (RESERVED_DEBUG_KEY); null for every other caller. */
  debug?: DebugControl | null;
  /** The recorded answers of a replayed studio run (REPLAY_METADATA_KEY); null for every other caller. */
  replay?: ReplayPlan | null;
  /** The tool mocks of a studio run's session or experiment (MOCKS_METADATA_KEY); null for every other caller. */
  mocks?: MockPlan | null;
}

/** Request metadata by messageId, from the HTTP layer to the executor. Entries are taken
 * once; stale ones expire so a request the SDK rejects cannot leak memory. */
export class RequestMetaStore {
  private readonly entries = new Map<string, { meta: RequestMeta; at: number }>();

  put(messageId: string, meta: RequestMeta): void {
    this.entries.set(messageId, { meta, at: Date.now() });
    if (this.entries.size > 1000) {
      const cutoff = Date.now() - 60_000;
      for (const [k, v] of this.entries) if (v.at < cutoff) this.entries.delete(k);
    }
  }

  take(messageId: string): RequestMeta {
    const e = this.entries.get(messageId);
    this.entries.delete(messageId);
    return e?.meta ?? { metadata: {}, history: undefined, captureToken: null, configurable: {}, streaming: true };
  }
}

/** Standard base64 (RFC 4648 section 4, padded), checked in one pass: a regex with a
 * repeated group recurses per group and overflows the stack on a few MB of input. */
export function isBase64(s: string): boolean {
  if (s.length % 4 !== 0) return false;
  let end = s.length;
  if (s.endsWith('==')) end -= 2;
  else if (s.endsWith('=')) end -= 1;
  for (let i = 0; i < end; i++) {
    const c = s.charCodeAt(i);
    const ok = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!ok) return false;
  }
  return true;
}

export class RpcInputError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** params.configuration and params.metadata of message/send and message/stream. */
function validateSendParams(params: Record<string, unknown>): void {
  const bad = (field: string, why: string) => new RpcInputError(JSONRPC.INVALID_PARAMS, `Invalid params: ${field} ${why}`, { field });
  if (params.metadata !== undefined && !isObject(params.metadata)) throw bad('params.metadata', 'must be an object');
  const c = params.configuration;
  if (c === undefined) return;
  if (!isObject(c)) throw bad('params.configuration', 'must be an object');
  if (c.blocking !== undefined && typeof c.blocking !== 'boolean') throw bad('params.configuration.blocking', 'must be a boolean');
  if (c.acceptedOutputModes !== undefined && !isStringArray(c.acceptedOutputModes))
    throw bad('params.configuration.acceptedOutputModes', 'must be an array of strings');
  if (c.historyLength !== undefined && !isNonNegativeInt(c.historyLength)) throw bad('params.configuration.historyLength', 'must be a non-negative integer');
  if (c.pushNotificationConfig !== undefined && !isObject(c.pushNotificationConfig))
    throw bad('params.configuration.pushNotificationConfig', 'must be an object');
}

function isNonNegativeInt(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0;
}

/** JSON-RPC 2.0: an id is a string, a number or null. */
function isValidId(id: unknown): boolean {
  return typeof id === 'string' || typeof id === 'number' || id === null;
}

/** Checks a message's parts; throws RpcInputError(INVALID_PARAMS) naming the field. */
export function validateMessage(message: unknown): void {
  const bad = (field: string, why: string) => new RpcInputError(JSONRPC.INVALID_PARAMS, `Invalid params: ${field} ${why}`, { field });
  if (!isObject(message)) throw bad('params.message', 'is required and must be an object');
  if (typeof message.messageId !== 'string' || !message.messageId) throw bad('params.message.messageId', 'is required');
  if (message.role !== 'user' && message.role !== 'agent') throw bad('params.message.role', "must be 'user' or 'agent'");
  if (!Array.isArray(message.parts) || message.parts.length === 0) throw bad('params.message.parts', 'must be a non-empty array');
  if (message.kind !== undefined && message.kind !== 'message') throw bad('params.message.kind', "must be 'message'");
  if (message.contextId !== undefined && typeof message.contextId !== 'string') throw bad('params.message.contextId', 'must be a string');
  if (message.taskId !== undefined && typeof message.taskId !== 'string') throw bad('params.message.taskId', 'must be a string');
  if (message.metadata !== undefined && !isObject(message.metadata)) throw bad('params.message.metadata', 'must be an object');
  if (message.referenceTaskIds !== undefined && !isStringArray(message.referenceTaskIds))
    throw bad('params.message.referenceTaskIds', 'must be an array of strings');
  if (message.extensions !== undefined && !isStringArray(message.extensions)) throw bad('params.message.extensions', 'must be an array of strings');
  message.parts.forEach((part, i) => {
    const f = `params.message.parts[${i}]`;
    if (!isObject(part)) throw bad(f, 'must be an object');
    if (part.metadata !== undefined && !isObject(part.metadata)) throw bad(`${f}.metadata`, 'must be an object');
    switch (part.kind) {
      case 'text':
        if (typeof part.text !== 'string') throw bad(`${f}.text`, 'must be a string');
        break;
      case 'data':
        if (!isObject(part.data)) throw bad(`${f}.data`, 'must be a JSON object');
        break;
      case 'file': {
        const file = part.file;
        if (!isObject(file)) throw bad(`${f}.file`, 'must be an object');
        const hasUri = file.uri !== undefined;
        const hasBytes = file.bytes !== undefined;
        if (hasUri === hasBytes) throw bad(`${f}.file`, 'must carry exactly one of uri or bytes');
        if (hasUri && (typeof file.uri !== 'string' || !file.uri)) throw bad(`${f}.file.uri`, 'must be a non-empty string');
        if (hasBytes && (typeof file.bytes !== 'string' || !isBase64(file.bytes))) throw bad(`${f}.file.bytes`, 'must be valid base64');
        if (file.name !== undefined && typeof file.name !== 'string') throw bad(`${f}.file.name`, 'must be a string');
        if (file.mimeType !== undefined && typeof file.mimeType !== 'string') throw bad(`${f}.file.mimeType`, 'must be a string');
        break;
      }
      default:
        throw bad(`${f}.kind`, "must be 'text', 'data' or 'file'");
    }
  });
}

const NUMERIC_OVERRIDES = ['scriptedDelayMs', 'scriptedChunks'] as const;

/** The methods of A2A 0.3.0's JSON-RPC binding this runtime serves. */
export const A2A_METHODS = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);
const TASK_ID_METHODS = new Set(['tasks/get', 'tasks/cancel', 'tasks/resubscribe']);

export interface GateOptions {
  /** Called once per well-formed request with its method (unknown methods as 'other'). */
  onRequest: (method: string) => void;
  /** The task of thread `contextId` waiting for input: a message on that context without a
   * taskId continues it instead of starting a new task (D-17). */
  waitingTask?: (contextId: string) => Promise<string | undefined>;
  /** A method refused now (a draining runtime, http/drain.ts): answered with HTTP 503. */
  refusal?: (method: string) => { code: number; message: string; data?: Record<string, unknown> } | null;
  /** The studio's control token (RUNTIME_CONTROL_TOKEN): a request carrying it may use the reserved continue key and RESERVED_DEBUG_KEY. */
  controlToken?: string | null;
}

/** Checks a known method's params; throws RpcInputError(INVALID_PARAMS) naming the field. */
function validateParams(method: string, params: unknown): void {
  const bad = (field: string, why: string) => new RpcInputError(JSONRPC.INVALID_PARAMS, `Invalid params: ${field} ${why}`, { field });
  if (method === 'message/send' || method === 'message/stream') {
    if (!isObject(params)) throw bad('params', 'must be an object');
    validateSendParams(params);
    validateMessage(params.message);
    return;
  }
  if (TASK_ID_METHODS.has(method)) {
    if (!isObject(params) || typeof params.id !== 'string' || !params.id) throw bad('params.id', '(the task id) is required and must be a non-empty string');
    if (params.historyLength !== undefined && !isNonNegativeInt(params.historyLength)) throw bad('params.historyLength', 'must be a non-negative integer');
    return;
  }
  if (method.startsWith('tasks/pushNotificationConfig/') && !isObject(params)) throw bad('params', 'must be an object');
  if (params !== undefined && !isObject(params) && !Array.isArray(params)) throw bad('params', 'must be an object');
}

/** The task a request names, for the request's context (observability/request-context.ts). */
function taskOf(params: unknown): { task_id?: string; context_id?: string } {
  if (!isObject(params)) return {};
  if (typeof params.id === 'string') return { task_id: params.id };
  const message = isObject(params.message) ? params.message : {};
  return {
    ...(typeof message.taskId === 'string' ? { task_id: message.taskId } : {}),
    ...(typeof message.contextId === 'string' ? { context_id: message.contextId } : {}),
  };
}

/** Express middleware in front of the SDK's JSON-RPC handler. */
export function jsonRpcGate(store: RequestMetaStore, { onRequest, waitingTask, refusal, controlToken }: GateOptions): RequestHandler {
  return (req, res, next) => {
    const reply = (id: unknown, code: number, message: string, data?: unknown) =>
      res.status(200).json({ jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data ? { data } : {}) } });
    const body = req.body as unknown;
    if (!isObject(body)) return reply(null, JSONRPC.INVALID_REQUEST, 'Invalid Request: the body must be a JSON-RPC 2.0 request object');
    // An id of the wrong type is never echoed back.
    const id = isValidId(body.id) ? body.id : null;
    // D-25: the envelope (jsonrpc, an id of the wrong type, a missing method), then the
    // method, then its params, then a missing id: a request without id still learns that its
    // method does not exist (-32601) or its params are wrong (-32602).
    if (body.jsonrpc !== '2.0') return reply(id, JSONRPC.INVALID_REQUEST, "Invalid Request: jsonrpc must be '2.0'");
    if (body.id !== undefined && !isValidId(body.id)) return reply(null, JSONRPC.INVALID_REQUEST, 'Invalid Request: id must be a string or a number');
    if (body.method === undefined) return reply(id, JSONRPC.INVALID_REQUEST, 'Invalid Request: method is required');
    // A method that is not a string names no method this server has.
    const known = typeof body.method === 'string' && A2A_METHODS.has(body.method);
    onRequest(known ? (body.method as string) : 'other');
    if (!known)
      return reply(
        id,
        JSONRPC.METHOD_NOT_FOUND,
        `Method not found: ${(typeof body.method === 'string' ? body.method : JSON.stringify(body.method)).slice(0, 100)}`,
      );
    const method = body.method as string;
    try {
      validateParams(method, body.params);
    } catch (err) {
      if (err instanceof RpcInputError) return reply(id, err.code, err.message, err.data);
      throw err;
    }
    if (body.id === undefined) return reply(null, JSONRPC.INVALID_REQUEST, 'Invalid Request: id is required (string or number)');
    noteRequest({ rpc_method: method, rpc_id: body.id as string | number, ...taskOf(body.params) });
    const refused = refusal?.(method);
    if (refused) return res.status(503).json({ jsonrpc: '2.0', id: body.id, error: refused });
    if (method !== 'message/send' && method !== 'message/stream') return next();
    const params = body.params as Record<string, unknown>;
    const message = params.message as Record<string, unknown>;
    const paramsMeta = isObject(params.metadata) ? { ...params.metadata } : {};
    const messageMeta = isObject(message.metadata) ? { ...message.metadata } : undefined;
    // The reserved capture key never reaches the SDK, the task store or the thread.
    const reserved = paramsMeta[RESERVED_CAPTURE_KEY] ?? messageMeta?.[RESERVED_CAPTURE_KEY];
    delete paramsMeta[RESERVED_CAPTURE_KEY];
    if (messageMeta) {
      delete messageMeta[RESERVED_CAPTURE_KEY];
      message.metadata = messageMeta;
    }
    const continued = takeContinueKey(req, paramsMeta, messageMeta, controlToken);
    if (continued.kind === 'refused') return reply(body.id, JSONRPC.INVALID_PARAMS, continued.message, continued.data);
    params.metadata = paramsMeta;
    const trusted = hasControlCredential(req.headers, controlToken);
    const debug = takeDebugControl(paramsMeta, messageMeta, trusted);
    const replay = takeReplay(paramsMeta, messageMeta, trusted);
    const mocks = takeMocks(paramsMeta, messageMeta, trusted);
    const captureToken = captureTokenOf(reserved);
    const history = paramsMeta.history ?? messageMeta?.history;
    const metadata = { ...paramsMeta };
    delete metadata.history;
    const configurable: Record<string, unknown> = {};
    for (const key of NUMERIC_OVERRIDES) if (typeof paramsMeta[key] === 'number') configurable[key] = paramsMeta[key];
    // Token deltas for a stream, and for a non-blocking send the client may follow with
    // tasks/resubscribe; a blocking send only ever returns the final task.
    const blocking = !isObject(params.configuration) || params.configuration.blocking !== false;
    store.put(message.messageId as string, {
      metadata,
      history,
      captureToken,
      configurable,
      streaming: body.method === 'message/stream' || !blocking,
      debug,
      replay,
      mocks,
      ...(continued.kind === 'continue' ? { fromCheckpoint: true } : {}),
    });
    if (!waitingTask || typeof message.contextId !== 'string' || !message.contextId || message.taskId !== undefined) return next();
    waitingTask(message.contextId).then(
      (taskId) => {
        if (taskId) message.taskId = taskId;
        next();
      },
      (err: unknown) => next(err),
    );
  };
}

/** Removes the reserved debug key from both metadata objects (it never reaches the SDK, the task
 * store or the thread) and answers its value when the caller is the studio, else null. */
function takeDebugControl(paramsMeta: Record<string, unknown>, messageMeta: Record<string, unknown> | undefined, trusted: boolean): DebugControl | null {
  const value = paramsMeta[RESERVED_DEBUG_KEY] ?? messageMeta?.[RESERVED_DEBUG_KEY];
  delete paramsMeta[RESERVED_DEBUG_KEY];
  if (messageMeta) delete messageMeta[RESERVED_DEBUG_KEY];
  if (!trusted || value === undefined) return null;
  const parsed = DebugControlSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Removes the reserved replay key from both metadata objects and answers the replay plan when
 * the caller is the studio, else null (docs/playground-api.md, "Replay"). */
function takeReplay(paramsMeta: Record<string, unknown>, messageMeta: Record<string, unknown> | undefined, trusted: boolean): ReplayPlan | null {
  const value = paramsMeta[REPLAY_METADATA_KEY] ?? messageMeta?.[REPLAY_METADATA_KEY];
  delete paramsMeta[REPLAY_METADATA_KEY];
  if (messageMeta) delete messageMeta[REPLAY_METADATA_KEY];
  if (!trusted || value === undefined) return null;
  const parsed = ReplayPlanSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}
