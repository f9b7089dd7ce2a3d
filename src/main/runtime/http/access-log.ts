// One structured line per request, and one audit line per management change (docs/operations.md,
// "Logs"), written when the answer ends; the same moment feeds the HTTP metrics (metrics.ts).
//   - access line (`"event":"access"`): method, path, JSON-RPC method (POST /), status, latency
//     in ms, request id, replica, and the principal's name when the request was authenticated
//     (auth/principal.ts: a key's name or a JWT's `sub`, never a credential). The probes and
//     /metrics log at debug, everything else at info.
//   - audit line (`"event":"audit"`): every management request that would change something
//     (any method but GET/HEAD/OPTIONS under /api/v1, and the legacy /internal/reload), with
//     the principal, the target and the changes asked for (secret-looking values masked), its
//     outcome included: refused ones are audited too.
// The request id is the caller's `X-Request-Id` when it is a short token, else a new UUID; it is
// echoed in the answer's `X-Request-Id` and kept in the request context (uncaught failures
// are logged with it, cli.ts).
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { currentRequest, noteRequest } from '../observability/request-context.ts';
import type { RuntimeMetrics } from '../observability/metrics.ts';
import { requestPrincipal } from '../auth/principal.ts';
import { A2A_METHODS } from '../a2a/request-meta.ts';
import { AGENT_CARD_ROUTE, LEGACY_AGENT_CARD_ROUTE, HEALTH_ROUTE, LIVENESS_ROUTE, MANAGEMENT_BASE, READINESS_ROUTE } from '../../../shared/runtime-contract.ts';
import { METRICS_ROUTE } from './metrics-route.ts';

const QUIET = new Set<string>([HEALTH_ROUTE, LIVENESS_ROUTE, READINESS_ROUTE, METRICS_ROUTE]);
/** Paths served without an Express route (the card's handler), named as they are. */
const FIXED = new Set<string>(['/', AGENT_CARD_ROUTE, LEGACY_AGENT_CARD_ROUTE, ...QUIET]);
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const SECRET_KEY = /dsn|password|secret|token|key|credential/i;

export interface AccessLogDeps {
  log: Logger;
  replica: string;
  metrics: Pick<RuntimeMetrics, 'request'>;
}

/** The route an answer came from, as a template (`/api/v1/memory/threads/:thread_id`), so a
 * label never carries an id; a path no route matched is `unmatched` (or `/api/v1/*`). */
export function routeLabel(req: Request, path: string): string {
  if (typeof req.route?.path === 'string') return `${req.baseUrl}${req.route.path}`;
  if (FIXED.has(path)) return path;
  return path.startsWith(`${MANAGEMENT_BASE}/`) ? `${MANAGEMENT_BASE}/*` : 'unmatched';
}

const isChange = (method: string, path: string) =>
  !['GET', 'HEAD', 'OPTIONS'].includes(method) && (path.startsWith(`${MANAGEMENT_BASE}/`) || path.startsWith('/internal/'));

/** The changes a management request asked for, with secret-looking values masked. */
function changesOf(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>).slice(0, 20)) {
    if (SECRET_KEY.test(k)) out[k] = '***';
    else if (typeof v === 'string') out[k] = withoutPassword(v).slice(0, 500);
    else out[k] = typeof v === 'object' && v !== null ? '[object]' : v;
  }
  return out;
}

function withoutPassword(s: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\/[^/]*@/i.test(s)) return s;
  try {
    const u = new URL(s);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return s;
  }
}

/** A management change: what it did (its route, the thread id as `:thread_id`) and on what. */
function auditOf(method: string, path: string): { action: string; target: string } {
  const thread = /^(.*\/memory\/threads\/)([^/]+)(.*)$/.exec(path);
  if (!thread) return { action: `${method} ${path}`, target: path.replace(`${MANAGEMENT_BASE}/`, '').replace(/^\//, '') };
  let id = thread[2];
  try {
    id = decodeURIComponent(id);
  } catch {
    // kept as sent
  }
  return { action: `${method} ${thread[1]}:thread_id${thread[3]}`, target: `thread ${id}` };
}

export function accessLog({ log, replica, metrics }: AccessLogDeps): RequestHandler {
  return (req, res, next) => {
    const started = performance.now();
    // Routers mounted under a prefix rewrite req.path while they run: the path as it came.
    const { path, method } = req;
    const presented = req.headers['x-request-id'];
    const requestId = typeof presented === 'string' && REQUEST_ID.test(presented) ? presented : randomUUID();
    res.setHeader('x-request-id', requestId);
    noteRequest({ request_id: requestId });
    const ctx = currentRequest();
    res.once('close', () => {
      const ms = performance.now() - started;
      const rpc = path === '/' && method === 'POST' ? rpcMethod(req.body) : null;
      const route = routeLabel(req, path);
      // An answer the client hung up on before its head was sent: 499, as nginx logs it.
      const status = res.headersSent ? res.statusCode : 499;
      metrics.request({ method, route, rpc_method: rpc ?? '', status: String(status) }, ms / 1000);
      const principal = principalName(req, res, ctx?.principal);
      const line = {
        event: 'access',
        method,
        path,
        ...(rpc ? { rpc_method: rpc } : {}),
        status,
        latency_ms: Math.round(ms * 10) / 10,
        request_id: requestId,
        replica,
        ...(principal ? { principal } : {}),
        ...(res.writableFinished ? {} : { aborted: true }),
      };
      log[QUIET.has(path) ? 'debug' : 'info'](line, `${method} ${rpc ?? path} ${status} ${line.latency_ms} ms`);
      if (isChange(method, path)) {
        const { action, target } = auditOf(method, path);
        const changes = changesOf(req.body);
        log.info(
          {
            event: 'audit',
            action,
            target,
            ...(changes ? { changes } : {}),
            status,
            principal: principal ?? null,
            request_id: requestId,
            replica,
          },
          `audit: ${action} on ${target} by ${principal ?? 'anonymous'}: ${status}`,
        );
      }
    });
    next();
  };
}

/** The JSON-RPC method of POST / (unknown ones as `other`, so labels stay few), else null. */
function rpcMethod(body: unknown): string | null {
  const m = (body as { method?: unknown } | undefined)?.method;
  if (m === undefined) return null;
  return typeof m === 'string' && A2A_METHODS.has(m) ? m : 'other';
}

/** The authenticated principal: a caller's (POST /) or an operator's (management). */
function principalName(req: Request, res: Response, noted: string | undefined): string | undefined {
  const caller = requestPrincipal(req);
  if (caller.scheme !== 'none') return caller.name;
  const operator = (res.locals as Record<string, unknown>).operator;
  return typeof operator === 'string' ? operator : noted || undefined;
}
