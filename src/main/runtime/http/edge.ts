// The runtime's HTTP edge (docs/security.md): who may call a loopback-bound runtime, the CORS
// rules of the JSON-RPC endpoint, and the one place where any error becomes an answer in the
// shape of the surface it happened on: a JSON-RPC error for POST / (spec 4.1 rule 7), A2A 1.0's
// google.rpc.Status under the HTTP+JSON base (/v1), the management envelope (spec 2.1)
// everywhere else. No HTML page, stack or path ever leaves.
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { fromClientHttpError, HttpInputError, type HttpInputCode } from '../../http/input-error.ts';
import { loopbackRefusal } from '../../http/loopback.ts';
import { JSONRPC } from '../a2a/request-meta.ts';
import { fail, MANAGEMENT_ERRORS, ManagementError, toManagementError } from '../management/envelope.ts';
import { storeUnavailableRpc } from '../a2a/store-outage.ts';
import { outageOf } from '../store/unavailable.ts';
import { A2A_REST_BASE, AGENT_CARD_ROUTE, LEGACY_AGENT_CARD_ROUTE, HEALTH_ROUTE, LIVENESS_ROUTE, READINESS_ROUTE } from '../../../shared/runtime-contract.ts';

/** Paths anyone may read from anywhere: the public agent card and the probes (probes.ts). */
const PUBLIC_PATHS = new Set<string>([AGENT_CARD_ROUTE, LEGACY_AGENT_CARD_ROUTE, HEALTH_ROUTE, LIVENESS_ROUTE, READINESS_ROUTE]);

export interface EdgePolicy {
  /** The runtime listens on a loopback address: refuse foreign Hosts and cross-site Origins. */
  loopback: boolean;
  /** A2A_CORS_ORIGINS: browser origins allowed to call POST / (and read its answers). */
  corsOrigins: readonly string[];
  /** Sent as `x-runtime-replica` on every answer, so an operator behind a load balancer sees
   * which replica answered (docs/deployment.md): the operator's REPLICA_ID (each `--workers`
   * worker has its own). Without one, no header: the generated default names the host, which
   * no answer shows (D-55). */
  replicaId?: string;
}

const isRpc = (req: Request) => req.path === '/' && (req.method === 'POST' || req.method === 'OPTIONS');
/** A2A 1.0 HTTP+JSON (D-86). */
const isRest = (req: Request) => req.path.startsWith(`${A2A_REST_BASE}/`);

/** google.rpc.Status names of the HTTP statuses an edge error can have (spec 1.0 section 11.6). */
const REST_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'FAILED_PRECONDITION',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** Host/Origin protection on loopback, and CORS for the card and the JSON-RPC endpoint. */
export function edgeGuard(policy: EdgePolicy): RequestHandler {
  const cors = new Set(policy.corsOrigins.map((o) => o.toLowerCase()));
  const replica = policy.replicaId?.trim();
  return (req, res, next) => {
    if (replica) res.setHeader('x-runtime-replica', replica);
    const readOnly = req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS';
    if (readOnly && (PUBLIC_PATHS.has(req.path) || (req.path === '/' && req.method !== 'OPTIONS'))) {
      // Public, read-only documents: any page may fetch the card to discover the agent.
      res.setHeader('access-control-allow-origin', '*');
      if (req.method === 'OPTIONS') return void res.status(204).end();
      return next();
    }
    const origin = req.headers.origin?.toLowerCase();
    if ((isRpc(req) || isRest(req)) && origin !== undefined && cors.has(origin)) {
      res.setHeader('access-control-allow-origin', req.headers.origin!);
      res.setHeader('vary', 'Origin');
      if (req.method === 'OPTIONS') {
        res.setHeader('access-control-allow-methods', isRest(req) ? 'GET, POST' : 'POST');
        res.setHeader('access-control-allow-headers', 'content-type, authorization, x-api-key, x-a2a-extensions, a2a-version, a2a-extensions');
        res.setHeader('access-control-max-age', '600');
        return void res.status(204).end();
      }
    }
    if (policy.loopback) {
      const refusal = loopbackRefusal(req, { port: req.socket.localPort ?? 0, extraOrigins: isRpc(req) ? cors : [] });
      if (refusal) return next(refusal);
    }
    if (req.method === 'OPTIONS') {
      // No CORS for anything else: a same-origin page never needs a preflight.
      return next(
        new ManagementError('NOT_FOUND', `No route OPTIONS ${req.path}: this runtime sends CORS headers only for POST / to the origins in A2A_CORS_ORIGINS.`),
      );
    }
    next();
  };
}

const RPC_CODES: Record<HttpInputCode, number> = {
  bad_request_target: JSONRPC.INVALID_REQUEST,
  invalid_path_encoding: JSONRPC.INVALID_REQUEST,
  invalid_json: JSONRPC.PARSE_ERROR,
  json_too_deep: JSONRPC.INVALID_REQUEST,
  body_too_large: JSONRPC.INVALID_REQUEST,
  unsupported_media_type: JSONRPC.INVALID_REQUEST,
  forbidden_host: JSONRPC.INVALID_REQUEST,
  forbidden_origin: JSONRPC.INVALID_REQUEST,
  bad_request: JSONRPC.INVALID_REQUEST,
  range_not_satisfiable: JSONRPC.INVALID_REQUEST,
};

function rpcError(res: Response, status: number, code: number, message: string, data?: unknown, id: unknown = null): void {
  res.status(status).json({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
}

/** The request's id, when its body was read and has a valid one. */
function requestId(req: Request): string | number | null {
  const id = (req.body as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/** The last error handler of the runtime's app. */
export function runtimeErrorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) {
      log.error({ err, method: req.method, path: req.path }, 'request failed after its answer started');
      return next(err); // Express ends the response
    }
    // JSON-RPC errors for the endpoint's own requests; a refused preflight is plain HTTP.
    if (req.path === '/' && req.method === 'POST') {
      err = fromClientHttpError(err) ?? err;
      if (err instanceof HttpInputError) {
        const label = RPC_CODES[err.code] === JSONRPC.PARSE_ERROR ? 'Parse error' : 'Invalid Request';
        return rpcError(res, err.status, RPC_CODES[err.code], `${label}: ${err.message}`);
      }
      if (outageOf(err) !== null) {
        // The gate's own store reads (a2a/request-meta.ts); logged once by store/guard.ts.
        const e = storeUnavailableRpc();
        return rpcError(res, 503, e.code, e.message, e.data, requestId(req));
      }
      log.error({ err }, 'JSON-RPC request failed unexpectedly');
      return rpcError(res, 500, JSONRPC.INTERNAL_ERROR, 'Internal error: the runtime failed unexpectedly while handling this request; it has been logged');
    }
    const error = toManagementError(err, log, `${req.method} ${req.path}`);
    if (isRest(req) || req.path === A2A_REST_BASE) {
      // A2A 1.0 HTTP+JSON: google.rpc.Status, as the binding answers its own errors (D-86).
      const status = MANAGEMENT_ERRORS[error.code];
      return void res.status(status).json({ error: { code: status, status: REST_STATUS[status] ?? 'UNKNOWN', message: error.message, details: [] } });
    }
    fail(res, error);
  };
}

/** Unknown routes outside /api/v1 answer 404 in the envelope too. */
export const runtimeNotFound: RequestHandler = (req, _res, next) => {
  next(new ManagementError('NOT_FOUND', `No route ${req.method} ${req.path}.`));
};
