// What a send (message/send, message/stream; SendMessage, SendStreamingMessage in A2A 1.0)
// goes through once its params are valid, whichever binding it came in (D-86): the reserved
// keys are taken out of the metadata (D-11, the studio's continue and debug keys), the request's
// metadata is handed to the executor, and a message on a thread waiting for
// input without a taskId continues the waiting task (D-17). The metadata travels with the
// request's own call context (RequestUser), not in a map beside it.
import type { IncomingHttpHeaders } from 'node:http';
import { captureOf, RESERVED_CAPTURE_KEY } from '../../../shared/runtime-contract.ts';
import { takeContinueKey } from './continue-key.ts';
import { DebugControlSchema, RESERVED_DEBUG_KEY, type DebugControl } from '../../../shared/breakpoints.ts';
import { REPLAY_METADATA_KEY, ReplayPlanSchema, type ReplayPlan } from '../../../shared/recordings.ts';
import { hasControlCredential } from './control-credential.ts';
import { takeMocks } from './request-mocks.ts';
import type { MockPlan } from '../../../shared/mocks.ts';
import type { Request, Response } from 'express';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { PrincipalUser, requestPrincipal, type Principal } from '../auth/principal.ts';

export interface RequestMeta {
  /** params.metadata without reserved keys. */
  metadata: Record<string, unknown>;
  history: unknown;
  captureToken: string | null;
  /** How long the turn's trace events may wait before they are posted to the studio (D-111). */
  captureBatchMs?: number;
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

/** What a request without admitted metadata carries (a call the runtime makes itself). */
const NO_META: RequestMeta = { metadata: {}, history: undefined, captureToken: null, configurable: {}, streaming: true };

/** The caller of an admitted send, carrying the send's metadata through the SDK's call context
 * (ServerCallContext.user) to the executor: the request's own context, nothing kept aside. */
export class RequestUser extends PrincipalUser {
  constructor(
    principal: Principal,
    readonly meta: RequestMeta,
  ) {
    super(principal);
  }

  override withPrincipal(principal: Principal): PrincipalUser {
    return new RequestUser(principal, this.meta);
  }
}

/** The admitted metadata of the request a call context belongs to. */
export function requestMetaOf(context: ServerCallContext | undefined): RequestMeta {
  return context?.user instanceof RequestUser ? context.user.meta : NO_META;
}

const LOCALS_KEY = 'a2aRequestMeta';

/** The SDK's userBuilder for the 0.3 JSON-RPC handler: the principal, with the metadata the
 * gate admitted for this request (res.locals). */
export function requestUserBuilder(req: Request): Promise<PrincipalUser> {
  const meta = (req.res?.locals as Record<string, unknown> | undefined)?.[LOCALS_KEY] as RequestMeta | undefined;
  return Promise.resolve(meta ? new RequestUser(requestPrincipal(req), meta) : new PrincipalUser(requestPrincipal(req)));
}

/** Keeps an admitted send's metadata with its response, for requestUserBuilder. */
export function keepRequestMeta(res: Response, meta: RequestMeta): void {
  (res.locals as Record<string, unknown>)[LOCALS_KEY] = meta;
}

const NUMERIC_OVERRIDES = ['scriptedDelayMs', 'scriptedChunks'] as const;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Why a send is refused: an invalid-params error with this message and data. */
export interface Refusal {
  message: string;
  data: Record<string, unknown>;
}

export interface AdmitOptions {
  /** The task of thread `contextId` waiting for input (D-17). */
  waitingTask?: (contextId: string) => Promise<string | undefined>;
  /** The studio's control token (RUNTIME_CONTROL_TOKEN). */
  controlToken?: string | null;
}

/**
 * Admits a send with valid params (0.3 shape, changed in place): answers the refusal, or the
 * metadata the executor gets (requestMetaOf). `stream`: the method streams.
 */
export async function admitSend(
  headers: IncomingHttpHeaders,
  params: Record<string, unknown>,
  stream: boolean,
  { waitingTask, controlToken }: AdmitOptions,
): Promise<{ refusal: Refusal } | { meta: RequestMeta }> {
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
  const continued = takeContinueKey({ headers }, paramsMeta, messageMeta, controlToken);
  if (continued.kind === 'refused') return { refusal: { message: continued.message, data: continued.data } };
  params.metadata = paramsMeta;
  const trusted = hasControlCredential(headers, controlToken);
  const debug = takeDebugControl(paramsMeta, messageMeta, trusted);
  const replay = takeReplay(paramsMeta, messageMeta, trusted);
  const mocks = takeMocks(paramsMeta, messageMeta, trusted);
  const capture = captureOf(reserved);
  const history = paramsMeta.history ?? messageMeta?.history;
  const metadata = { ...paramsMeta };
  delete metadata.history;
  const configurable: Record<string, unknown> = {};
  for (const key of NUMERIC_OVERRIDES) if (typeof paramsMeta[key] === 'number') configurable[key] = paramsMeta[key];
  // Token deltas for a stream, and for a non-blocking send the client may follow with
  // tasks/resubscribe; a blocking send only ever returns the final task.
  const blocking = !isObject(params.configuration) || params.configuration.blocking !== false;
  const meta: RequestMeta = {
    metadata,
    history,
    captureToken: capture?.token ?? null,
    ...(capture ? { captureBatchMs: capture.batchMs } : {}),
    configurable,
    streaming: stream || !blocking,
    debug,
    replay,
    mocks,
    ...(continued.kind === 'continue' ? { fromCheckpoint: true } : {}),
  };
  if (!waitingTask || typeof message.contextId !== 'string' || !message.contextId || message.taskId !== undefined) return { meta };
  const taskId = await waitingTask(message.contextId);
  if (taskId) message.taskId = taskId;
  return { meta };
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
