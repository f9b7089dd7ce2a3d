// The authentication gates of the runtime's HTTP surface (docs/security.md, "Deployed runtime:
// authentication"). POST / (JSON-RPC) needs a caller's credential when caller authentication is
// configured: the request then acts as its principal (principal.ts). The management API needs an
// operator's credential (MANAGEMENT_API_KEYS, or RUNTIME_CONTROL_TOKEN) when one is configured.
// The card, /healthz and the other probes stay public. A refusal never says which part of a
// credential was wrong; the log does (without the credential).
import { timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { noteRequest } from '../observability/request-context.ts';
import { ManagementError } from '../management/envelope.ts';
import { sha256, type KeyRing } from './api-keys.ts';
import { presentedCredential, type CallerAuthenticator } from './credentials.ts';
import { setRequestPrincipal } from './principal.ts';
import { A2A_REST_BASE } from '../../../shared/runtime-contract.ts';

/** JSON-RPC error code of POST / without a valid credential (HTTP 401; docs/security.md). It is
 * outside the codes A2A 0.3 defines (-32001..-32007) and JSON-RPC's own (-32600..-32603, -32700). */
export const UNAUTHENTICATED = -32010;
const RPC_MESSAGE = 'Unauthenticated: this agent needs a valid credential (see securitySchemes in its agent card).';

/** Where a request came from, for the log lines of refusals. */
const peer = (req: Request) => ({ remote: req.socket.remoteAddress, method: req.method, path: req.path });

/** POST / (JSON-RPC, both A2A versions) and the A2A 1.0 HTTP+JSON binding under /v1 (D-86):
 * with caller authentication configured, a valid caller credential or 401. */
export function callerAuthRouter(callers: CallerAuthenticator, log: Logger): express.Router {
  const router = express.Router();
  if (!callers.configured) return router; // every caller is ANONYMOUS (principal.ts)
  // RFC 9110 11.6.1: one challenge per scheme; a key may also come as a bearer token.
  const challenges = ['Bearer realm="a2a"', ...(callers.schemes.apiKey ? ['ApiKey realm="a2a", header="X-API-Key"'] : [])];
  const gate =
    (rest: boolean): express.RequestHandler =>
    (req, res, next) => {
      void callers.verify(presentedCredential(req)).then((verdict) => {
        if (verdict.ok) {
          setRequestPrincipal(res, verdict.principal);
          noteRequest({ principal: verdict.principal.name });
          return next();
        }
        log[verdict.missing ? 'debug' : 'warn']({ ...peer(req), reason: verdict.reason }, 'JSON-RPC request refused: not authenticated');
        for (const c of challenges) res.append('www-authenticate', c);
        if (rest) res.status(401).json({ error: { code: 401, status: 'UNAUTHENTICATED', message: RPC_MESSAGE, details: [] } });
        else res.status(401).json({ jsonrpc: '2.0', id: null, error: { code: UNAUTHENTICATED, message: RPC_MESSAGE } });
      }, next);
    };
  router.post('/', gate(false));
  router.use(A2A_REST_BASE, gate(true));
  return router;
}

/** The operator a request made with RUNTIME_CONTROL_TOKEN acts as, in the logs. */
export const CONTROL_TOKEN_PRINCIPAL = 'runtime-control-token';

export interface OperatorGateOptions {
  operatorKeys: KeyRing;
  /** RUNTIME_CONTROL_TOKEN: the studio's credential for its child, an operator credential too. */
  controlToken: string | null;
  /** Whether every management endpoint needs an operator credential (else only the registry's). */
  protectAll: boolean;
  /** Tells a caller's credential from an unknown one (a caller gets 403, not 401). */
  callers: CallerAuthenticator;
  log: Logger;
}

/** The management API's gates: `all` before every endpoint, `registry` before the registry's. */
export function operatorGates(opts: OperatorGateOptions): { all: RequestHandler; registry: RequestHandler } {
  const { operatorKeys, controlToken, callers, log } = opts;
  const configured = operatorKeys.size > 0 || controlToken !== null;
  const token = controlToken ? sha256(controlToken) : null;
  const gate: RequestHandler = (req: Request, res: Response, next: NextFunction) => {
    const presented = presentedCredential(req);
    if (presented.kind === 'bearer') {
      // The operator's name (never the credential) for the access and audit lines (http/access-log.ts).
      if (token && timingSafeEqual(sha256(presented.token), token)) {
        res.locals.operator = CONTROL_TOKEN_PRINCIPAL;
        return next();
      }
      const operator = operatorKeys.nameOf(presented.token);
      if (operator !== null) {
        noteRequest({ principal: operator });
        res.locals.operator = operator;
        return next();
      }
    }
    void callers.verify(presented).then((verdict) => {
      if (verdict.ok) {
        log.warn({ ...peer(req), principal: verdict.principal.name }, 'management request refused: a caller credential, not an operator one');
        return next(
          new ManagementError(
            'OPERATOR_CREDENTIAL_REQUIRED',
            'The management API needs an operator credential (Authorization: Bearer <management key>), not a caller key.',
          ),
        );
      }
      log[presented.kind === 'none' ? 'debug' : 'warn']({ ...peer(req) }, 'management request refused: not authenticated');
      res.setHeader('www-authenticate', 'Bearer realm="management"');
      next(new ManagementError('UNAUTHORIZED', 'The management API needs an operator credential (Authorization: Bearer <management key>).'));
    }, next);
  };
  const pass: RequestHandler = (_req, _res, next) => next();
  return { all: configured && opts.protectAll ? gate : pass, registry: configured ? gate : pass };
}
