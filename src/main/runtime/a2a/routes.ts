// The A2A endpoints: JSON-RPC at POST / behind the runtime's own gate (request-meta.ts) on
// @a2a-js/sdk 0.3's express handler for A2A 0.3.0, and A2A 1.0 beside it (D-86): a request
// asking for 1.0 (`A2A-Version`) goes to the 1.x SDK's JSON-RPC transport, and the HTTP+JSON
// binding is under A2A_REST_BASE. The agent card at its well-known paths and at / (D-88).
import { createHash } from 'node:crypto';
import express, { type Request, type RequestHandler } from 'express';
import type { AgentCard } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { jsonBody } from '../../http/json-body.ts';
import { RUNTIME_RPC_BODY_LIMIT } from '../../http/limits.ts';
import { jsonRpcGate, type GateOptions } from './request-meta.ts';
import { requestUserBuilder } from './send-admission.ts';
import { A2A_REST_BASE, AGENT_CARD_ROUTE, LEGACY_AGENT_CARD_ROUTE } from '../../../shared/runtime-contract.ts';
import { STORE_UNAVAILABLE_RPC } from './store-outage.ts';
import { card03WithInterfaces, cardJsonV1 } from './v1/card.ts';
import { speaks03, v1ContentType, v1JsonRpc, v1Rest } from './v1/routes.ts';
import type { V1Bridge } from './v1/bridge.ts';

/** A store outage the SDK answers (with HTTP 200) goes out as 503, like the endpoint's other
 * "unavailable" answers (http/drain.ts): nothing was done, a balancer may send it elsewhere. */
const outageStatus: RequestHandler = (_req, res, next) => {
  const json = res.json.bind(res);
  res.json = (body?: { error?: { code?: unknown } }) => {
    if (body?.error?.code === STORE_UNAVAILABLE_RPC && res.statusCode === 200) res.status(503);
    return json(body);
  };
  next();
};

/** How long a client may keep the card: short, since a reload or PATCH /api/v1/card/url changes it. */
const CARD_MAX_AGE_S = 60;

export interface A2aRouteDeps {
  handler: A2ARequestHandler;
  /** The A2A 1.0 bindings' handler over `handler` (v1/bridge.ts). */
  v1: V1Bridge;
  /** The served card (its url may change at run time: PATCH /api/v1/card/url). */
  card: AgentCard;
  gate: GateOptions;
}

export function a2aRouter(deps: A2aRouteDeps): express.Router {
  const router = express.Router();
  const v03: RequestHandler[] = [jsonRpcGate(deps.gate), outageStatus, jsonRpcHandler({ requestHandler: deps.handler, userBuilder: requestUserBuilder })];
  const v1 = v1JsonRpc(deps.v1, deps.gate.refusal);
  router.post('/', v1ContentType, jsonBody({ limit: RUNTIME_RPC_BODY_LIMIT }), (req, res, next) => (speaks03(req) ? next() : v1(req, res, next)), ...v03);
  router.use(
    A2A_REST_BASE,
    (req, res, next) => (req.is('application/json') ? jsonBody({ limit: RUNTIME_RPC_BODY_LIMIT })(req, res, next) : next()),
    v1Rest(deps.v1, deps.gate.refusal),
  );
  // A client asking for A2A 1.0 gets the 1.0 card; any other the 0.3 card, which also lists
  // the 1.0 interfaces (D-88).
  const modified = new Map<string, string>(); // a card's body → when it was first served (D-88)
  const card = (req: Request, res: express.Response) => {
    const body = JSON.stringify(speaks03(req) ? card03WithInterfaces(deps.card) : cardJsonV1(deps.card));
    if (!modified.has(body)) {
      if (modified.size > 8) modified.clear();
      modified.set(body, new Date().toUTCString());
    }
    res.append('vary', 'A2A-Version');
    // Spec 1.0 section 8.6.1: cacheable, with a validator; a reload or a new url changes the body.
    res.setHeader('cache-control', `public, max-age=${CARD_MAX_AGE_S}`);
    res.setHeader('last-modified', modified.get(body) as string);
    res.setHeader('etag', `W/"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"`);
    if (req.fresh) return res.status(304).end();
    res.type('application/json').send(body);
  };
  router.get(AGENT_CARD_ROUTE, card);
  // D-77: clients written before A2A 0.3 look for the card at its older path.
  router.get(LEGACY_AGENT_CARD_ROUTE, card);
  // D-26: the card's url is this endpoint; a client that GETs it finds the card there too.
  router.get('/', card);
  return router;
}
