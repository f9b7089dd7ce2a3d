// Recorded outbound calls (docs/runtime-traces.md, "Recorded calls"; D-91, D-92): the
// project's `ctx.fetch` (and `callAgent`, which uses it) and its MCP tool calls, made while
// a run records or replays, become `outbound.call` events keyed like model calls (node,
// fan-out branch, index, request hash); in a replay they are answered from the recording.
// A provider's HTTP request made inside a model call is attached to that call instead (its
// raw request). Secrets are redacted before anything is kept or hashed.
import { randomUUID } from 'node:crypto';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import {
  anyCallSession,
  callSession,
  currentCallScope,
  nodeOf,
  requestHash,
  type CallKind,
  type CallSession,
  type ReplayAnswer,
} from '../../../sdk/call-record.ts';
import { isMockedAnswer, mockFailure } from '../../../sdk/call-mocks.ts';
import { modelCallNotes } from '../../../sdk/replay-model.ts';
import { OUTBOUND_CALL_EVENT, REDACTED, REDACTED_HEADERS, SECRET_NAME } from '../../../shared/recordings.ts';
import type { PooledFetch } from './pool.ts';

/** A body larger than this is recorded cut to it (`*_truncated: true`); docs/runtime-traces.md. */
export const MAX_RECORDED_BODY = 1024 * 1024;

const ALWAYS = new Set<string>(REDACTED_HEADERS);
/** Body keys whose values are never recorded (JSON bodies, any depth). */
const SECRET_KEY =
  /^(api[-_]?key|apikey|password|passwd|secret|client[-_]?secret|authorization|access[-_]?token|refresh[-_]?token|id[-_]?token|cookie|private[-_]?key)$/i;
/** Response headers that describe the wire, not the content (a replay answers decoded bytes). */
const WIRE = new Set(['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive']);

export function redactHeaders(headers: RequestInit['headers'] | Headers | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  new Headers(headers).forEach((value, name) => {
    out[name] = ALWAYS.has(name) || SECRET_NAME.test(name) ? REDACTED : value;
  });
  return out;
}

export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.username || u.password) {
      u.username = '';
      u.password = '';
    }
    for (const k of [...u.searchParams.keys()]) if (SECRET_NAME.test(k)) u.searchParams.set(k, REDACTED);
    return u.href;
  } catch {
    return raw;
  }
}

export function redactBody(v: unknown, depth = 0): unknown {
  if (depth > 20 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => redactBody(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = SECRET_KEY.test(k) ? REDACTED : redactBody(x, depth + 1);
  return out;
}

/** A body as recorded: parsed JSON when it is JSON, else its text, cut to MAX_RECORDED_BODY. */
function bodyOf(text: string): { body: unknown; truncated?: true } {
  if (text.length > MAX_RECORDED_BODY) return { body: text.slice(0, MAX_RECORDED_BODY), truncated: true };
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return { body: redactBody(JSON.parse(text)) };
    } catch {
      /* not JSON after all */
    }
  }
  return { body: text };
}

function requestText(init: RequestInit | undefined): string | undefined {
  const b = init?.body;
  if (b === undefined || b === null) return undefined;
  if (typeof b === 'string') return b;
  if (b instanceof Uint8Array || b instanceof ArrayBuffer) return Buffer.from(b as Uint8Array).toString('utf8');
  if (b instanceof URLSearchParams) return b.toString();
  return '[stream]';
}

/** The run a call belongs to: LangGraph's config of the node it runs in. */
function where(): { session: CallSession; md: Record<string, unknown> } | null {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig() as
    { metadata?: Record<string, unknown>; configurable?: Record<string, unknown> } | undefined;
  const md = config?.metadata ?? {};
  const session = callSession(md.thread_id ?? config?.configurable?.thread_id);
  return session ? { session, md } : null;
}

function taskOf(md: Record<string, unknown>): string | null {
  const ns = typeof md.langgraph_checkpoint_ns === 'string' ? md.langgraph_checkpoint_ns : '';
  const last = ns.split('|').at(-1) ?? '';
  return last.includes(':') ? last.slice(last.indexOf(':') + 1) : null;
}

interface Call {
  session: CallSession;
  kind: CallKind;
  fields: Record<string, unknown>;
  started: number;
  answer: ReplayAnswer | null;
}

/** Keys a call, asks the replay for its answer; null when no run records or replays it. */
function begin(kind: CallKind, request: Record<string, unknown>, shown: Record<string, unknown>): Call | null {
  const at = where();
  if (!at) return null;
  const scope = currentCallScope();
  const k = scope?.kind ?? kind;
  const key = at.session.next(k, nodeOf(at.md), scope?.branch?.label ?? null, requestHash(request));
  const answer = at.session.answer(k, key, request);
  const fields = {
    kind: k,
    key,
    span_id: randomUUID(),
    parent_span_id: taskOf(at.md),
    branch_span_id: scope?.branch?.span_id ?? null,
    started_at: new Date().toISOString(),
    ...shown,
    ...(isMockedAnswer(answer) ? { mocked: true, mock_id: answer.mock_id } : answer ? { replayed: true } : {}),
  };
  return { session: at.session, kind: k, fields, started: performance.now(), answer };
}

function end(call: Call, fields: Record<string, unknown>): void {
  if (!call.session.options.record && !call.answer) return;
  const duration_ms = Math.round((performance.now() - call.started) * 10) / 10;
  call.session.options.emit(OUTBOUND_CALL_EVENT, { ...call.fields, duration_ms, ...fields });
}

function replayedResponse(a: ReplayAnswer): Response {
  if (isMockedAnswer(a) && a.mock_error) throw mockFailure(a);
  if (typeof a.error === 'string') throw new TypeError(`fetch failed (replayed): ${a.error}`);
  const body =
    a.response_body === undefined || a.response_body === null ? null : typeof a.response_body === 'string' ? a.response_body : JSON.stringify(a.response_body);
  const status = typeof a.status === 'number' ? a.status : 200;
  const noBody = status === 204 || status === 304;
  return new Response(noBody ? null : body, { status, headers: (a.response_headers as Record<string, string> | undefined) ?? {} });
}

/** The provider request of a model call, kept with that call as its raw request. */
function noteModelRequest(modelRun: string, url: string, init: RequestInit | undefined): void {
  const note = modelCallNotes().get(modelRun);
  if (!note) return;
  const text = requestText(init);
  note.raw = {
    method: (init?.method ?? 'GET').toUpperCase(),
    url: redactUrl(url),
    headers: redactHeaders(init?.headers),
    body: text === undefined ? null : bodyOf(text).body,
  };
}

const GLOBAL_NOTED = Symbol.for('agent-studio.model-request-notes');

/** Google's client calls the global `fetch` and takes no other (providers.ts): the global one
 * notes a model call's raw request too, passing every request through as it is. It notes only
 * inside a recording run's model call (the call's scope names it); once per process. */
export function noteModelRequestsOnGlobalFetch(): void {
  const g = globalThis as typeof globalThis & { [GLOBAL_NOTED]?: true };
  if (g[GLOBAL_NOTED]) return;
  g[GLOBAL_NOTED] = true;
  const base = g.fetch;
  g.fetch = (input, init) => {
    if (anyCallSession()) {
      const modelRun = currentCallScope()?.modelRun;
      if (modelRun && !(input instanceof Request)) noteModelRequest(modelRun, typeof input === 'string' ? input : input.href, init);
    }
    return base(input, init);
  };
}

/** `base` with each call of a recording or replaying run recorded, or answered on replay. */
export function recordingFetch(base: PooledFetch, kind: CallKind = 'fetch'): PooledFetch {
  return async (input, init) => {
    if (!anyCallSession() || input instanceof Request) return base(input, init);
    const url = typeof input === 'string' ? input : input.href;
    const method = (init?.method ?? 'GET').toUpperCase();
    const text = requestText(init);
    const scope = currentCallScope();
    if (scope?.modelRun) {
      // The provider's request of a model call: its raw request, kept with that call.
      noteModelRequest(scope.modelRun, url, init);
      return base(input, init);
    }
    const reqBody = text === undefined ? undefined : bodyOf(text);
    const request = { method, url: redactUrl(url), body: reqBody?.body ?? null };
    const call = begin(kind, request, {
      method,
      url: request.url,
      request_headers: redactHeaders(init?.headers),
      ...(reqBody ? { request_body: reqBody.body, ...(reqBody.truncated ? { request_body_truncated: true } : {}) } : {}),
    });
    if (!call) return base(input, init);
    if (call.answer) {
      const a = call.answer;
      end(call, {
        status: a.status ?? null,
        response_headers: a.response_headers,
        response_body: a.response_body,
        ...(isMockedAnswer(a) && a.error ? { error: a.error } : {}),
      });
      return replayedResponse(a);
    }
    let res: Response;
    try {
      res = await base(input, init);
    } catch (err) {
      end(call, { status: null, error: String((err as Error)?.message ?? err).slice(0, 500) });
      throw err;
    }
    if (!call.session.options.record) return res;
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(redactHeaders(res.headers))) if (!WIRE.has(k)) headers[k] = v;
    // The body is read from a copy once it has all come; the caller reads its own as it streams.
    const copy = res.clone();
    void copy.text().then(
      (t) => {
        const b = bodyOf(t);
        end(call, { status: res.status, response_headers: headers, response_body: b.body, ...(b.truncated ? { response_body_truncated: true } : {}) });
      },
      (err: unknown) => end(call, { status: res.status, response_headers: headers, error: `body not read: ${String((err as Error)?.message ?? err)}` }),
    );
    return res;
  };
}

/** An MCP tool call (or another non-HTTP call) recorded, or answered on replay; `request` is
 * what keys it (server, tool, arguments). */
export async function recordedCall<R>(kind: CallKind, request: Record<string, unknown>, run: () => Promise<R>): Promise<R> {
  if (!anyCallSession()) return run();
  const shown = {
    method: 'CALL',
    url: `${kind}:${String(request.server ?? '')}/${String(request.tool ?? '')}`,
    request_headers: {},
    request_body: redactBody(request),
  };
  const call = begin(kind, { ...request, args: redactBody(request.args) }, shown);
  if (!call) return run();
  if (call.answer) {
    end(call, { status: call.answer.status ?? null, response_body: call.answer.response_body, ...(call.answer.error ? { error: call.answer.error } : {}) });
    if (isMockedAnswer(call.answer) && call.answer.mock_error) throw mockFailure(call.answer);
    if (typeof call.answer.error === 'string') throw new Error(call.answer.error);
    return call.answer.response_body as R;
  }
  try {
    const result = await run();
    end(call, { status: 200, response_body: redactBody(result) });
    return result;
  } catch (err) {
    end(call, { status: null, error: String((err as Error)?.message ?? err).slice(0, 500) });
    throw err;
  }
}
