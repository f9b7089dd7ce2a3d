// The A2A endpoints on @a2a-js/sdk's express handlers: JSON-RPC at POST / behind the
// runtime's own gate (request-meta.ts), and the agent card at its well-known path and at /.
import express from 'express';
import type { AgentCard } from '@a2a-js/sdk';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { jsonBody } from '../../http/json-body.ts';
import { RUNTIME_RPC_BODY_LIMIT } from '../../http/limits.ts';
import { jsonRpcGate, type GateOptions, type RequestMetaStore } from './request-meta.ts';
import { AGENT_CARD_ROUTE } from '../../../shared/runtime-contract.ts';
import { principalUserBuilder } from '../auth/principal.ts';

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
    jsonRpcHandler({ requestHandler: deps.handler, userBuilder: principalUserBuilder }),
  );
  router.use(AGENT_CARD_ROUTE, agentCardHandler({ agentCardProvider: async () => deps.card }));
  // D-26: the card's url is this endpoint; a client that GETs it finds the card there too.
  router.get('/', (_req, res) => {
    res.json(deps.card);
  });
  return router;
}
