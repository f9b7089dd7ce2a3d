// The A2A endpoints on @a2a-js/sdk's express handlers: JSON-RPC at POST / behind the
// runtime's own gate (request-meta.ts), and the agent card at its well-known path and at /.
import express, { type RequestHandler } from 'express';
import type { AgentCard } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { jsonBody } from '../../http/json-body.ts';
import { RUNTIME_RPC_BODY_LIMIT } from '../../http/limits.ts';
import { jsonRpcGate, type GateOptions, type RequestMetaStore } from './request-meta.ts';
import { AGENT_CARD_ROUTE, LEGACY_AGENT_CARD_ROUTE } from '../../../shared/runtime-contract.ts';
import { principalUserBuilder } from '../auth/principal.ts';
import { STORE_UNAVAILABLE_RPC } from './store-outage.ts';

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

export interface A2aRouteDeps {
  handler: A2ARequestHandler;
  /** The served card (its url may change at run time: PATCH /api/v1/card/url). */
  card: AgentCard;
  requestMeta: RequestMetaStore;
  gate: GateOptions;
}

export function a2aRouter(deps: A2aRouteDeps): express.Router {
  const router = express.Router();
  router.post(
    '/',
    jsonBody({ limit: RUNTIME_RPC_BODY_LIMIT }),
    jsonRpcGate(deps.requestMeta, deps.gate),
    outageStatus,
    jsonRpcHandler({ requestHandler: deps.handler, userBuilder: principalUserBuilder }),
  );
  const cardHandler = agentCardHandler({ agentCardProvider: async () => deps.card });
  router.use(AGENT_CARD_ROUTE, cardHandler);
  // D-77: clients written before A2A 0.3 look for the card at its older path.
  router.use(LEGACY_AGENT_CARD_ROUTE, cardHandler);
  // D-26: the card's url is this endpoint; a client that GETs it finds the card there too.
  router.get('/', (_req, res) => {
    res.json(deps.card);
  });
  return router;
}
