// Which A2A version a request speaks, and the 1.0 bindings on the 1.x SDK's express transports
// (D-86). The version is the request's `A2A-Version` header (or query parameter, spec 1.0
// section 3.6.1): absent or empty is 0.3 (section 3.6.2), a patch number does not count, and
// the 1.x transports answer VersionNotSupportedError for a version the card does not list.
import type { Request, RequestHandler } from 'express';
import { A2A_CONTENT_TYPE, A2A_VERSION_HEADER, SendMessageRequest, TaskPushNotificationConfig, type AgentCard } from 'a2a-sdk-1';
import { hasBody } from '../../../http/json-body.ts';
import { defaultServerCallContextBuilder, type ServerCallContextBuilder } from 'a2a-sdk-1/server';
import { jsonRpcHandler, restHandler } from 'a2a-sdk-1/server/express';
import { principalUserBuilder } from '../../auth/principal.ts';
import { noteRequest } from '../../observability/request-context.ts';
import type { V1Bridge } from './bridge.ts';
import { watchHangup } from './hangup.ts';
import { answerOutage } from './outage.ts';

type Refusal = { code: number; message: string; data?: Record<string, unknown> } | null;

const VERSION_HEADER = A2A_VERSION_HEADER.toLowerCase();

/** The version a request asks for as Major.Minor ('0.3' when it names none); as sent when it is not a version. */
export function requestedVersion(req: Pick<Request, 'headers' | 'query' | 'url'>): string {
  const header = req.headers[VERSION_HEADER];
  if (typeof header === 'string') return majorMinor(header);
  // Asked on every POST /: a request with no query string has no version there (Express parses
  // the query string again at each read of req.query; D-114).
  if (!req.url.includes('?')) return '0.3';
  const query = req.query[A2A_VERSION_HEADER];
  return majorMinor(typeof query === 'string' ? query : '');
}

function majorMinor(version: string): string {
  const raw = version.trim();
  if (!raw) return '0.3';
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(raw);
  return m ? `${Number(m[1])}.${Number(m[2])}` : raw;
}

/** Whether a request speaks A2A 0.3 (served by the 0.3 SDK's handler, unchanged). */
export const speaks03 = (req: Request) => requestedVersion(req) === '0.3';

const contextBuilder: ServerCallContextBuilder = (opts) =>
  defaultServerCallContextBuilder({ ...opts, requestedVersion: opts.requestedVersion && majorMinor(opts.requestedVersion) });

const SENDS: Record<string, string> = { SendMessage: 'message/send', SendStreamingMessage: 'message/stream' };

/** POST / for A2A 1.0, before the body is read: a body that is not application/json is
 * ContentTypeNotSupportedError (-32005, spec 1.0 section 5.4), where 0.3 answers -32600 (D-27). */
export const v1ContentType: RequestHandler = (req, res, next) => {
  if (speaks03(req) || !hasBody(req) || req.is('application/json')) return next();
  const message = `Content type not supported: send application/json (got '${req.headers['content-type'] ?? 'none'}')`;
  res.status(415).json({ jsonrpc: '2.0', id: null, error: { code: -32005, message } });
};

/** POST / for A2A 1.0: the drain's refusal of new work (http/drain.ts), then the 1.x JSON-RPC transport. */
export function v1JsonRpc(bridge: V1Bridge, refusal: ((method: string) => Refusal) | undefined): RequestHandler {
  const transport = jsonRpcHandler({ requestHandler: bridge, userBuilder: principalUserBuilder, contextBuilder });
  return (req, res, next) => {
    const body = req.body as { method?: unknown; id?: unknown } | undefined;
    const method = typeof body?.method === 'string' ? body.method : undefined;
    const id = typeof body?.id === 'string' || typeof body?.id === 'number' ? body.id : null;
    if (method) noteRequest({ rpc_method: method, ...(id !== null ? { rpc_id: id } : {}) });
    const refused = method && SENDS[method] ? refusal?.(SENDS[method]) : null;
    if (refused) return res.status(503).json({ jsonrpc: '2.0', id, error: refused });
    answerOutage(res, 'jsonrpc');
    watchHangup(req, res, () => transport(req, res, next));
  };
}

/** The bodies the 1.x REST transport parses, by route (an optional tenant segment first). Its
 * parsers throw a TypeError on some shapes (`"parts": [null]`), which it answers as an internal
 * error; parsed here first, such a body is INVALID_ARGUMENT (400), like any bad input. */
const PARSED: [RegExp, string, (json: unknown) => unknown][] = [
  [/^(?:\/[^/]+)?\/message:(?:send|stream)$/, 'SendMessageRequest', (j) => SendMessageRequest.fromJSON(j)],
  [/^(?:\/[^/]+)?\/tasks\/[^/]+\/pushNotificationConfigs$/, 'TaskPushNotificationConfig', (j) => TaskPushNotificationConfig.fromJSON(j)],
];

function unparsable(req: Request): string | null {
  if (req.method !== 'POST' || req.body === undefined) return null;
  const route = PARSED.find(([re]) => re.test(req.path));
  if (!route) return null;
  try {
    route[2](req.body);
    return null;
  } catch (err) {
    return `Invalid params: the body is not a ${route[1]}: ${(err as Error).message}`;
  }
}

/** The HTTP+JSON binding (mounted at A2A_REST_BASE): the same refusal, then the 1.x REST transport. */
export function v1Rest(bridge: V1Bridge, refusal: ((method: string) => Refusal) | undefined): RequestHandler {
  const transport = restHandler({ requestHandler: bridge, userBuilder: principalUserBuilder, contextBuilder });
  return (req, res, next) => {
    // Spec 1.0 section 11.1: HTTP+JSON requests and answers are application/json (the SDK says
    // application/a2a+json, which it also accepts); another body type is 415 (section 5.4).
    const setHeader = res.setHeader.bind(res);
    res.setHeader = (name: string, value: number | string | readonly string[]) =>
      setHeader(name, name.toLowerCase() === 'content-type' && value === A2A_CONTENT_TYPE ? 'application/json' : value);
    if (hasBody(req) && !req.is(['application/json', A2A_CONTENT_TYPE])) {
      const message = `Content type not supported: send application/json (got '${req.headers['content-type'] ?? 'none'}')`;
      return res.status(415).json({ error: { code: 415, status: 'INVALID_ARGUMENT', message, details: [] } });
    }
    const bad = unparsable(req);
    if (bad) return res.status(400).json({ error: { code: 400, status: 'INVALID_ARGUMENT', message: bad, details: [] } });
    const send = req.method === 'POST' ? /^\/message:(send|stream)$/.exec(req.path)?.[1] : undefined;
    const refused = send ? refusal?.(send === 'send' ? 'message/send' : 'message/stream') : null;
    if (refused) return res.status(503).json({ error: { code: 503, status: 'UNAVAILABLE', message: refused.message, details: [] } });
    answerOutage(res, 'rest');
    watchHangup(req, res, () => transport(req, res, next));
  };
}

/** The card a request gets: the 1.0 card when it asks for 1.0 (or later), else the 0.3 card
 * with the interfaces 1.0 clients look for (D-88). */
export function cardFor(req: Request, v03: () => unknown, v1: () => AgentCard | Record<string, unknown>): unknown {
  return speaks03(req) ? v03() : v1();
}
