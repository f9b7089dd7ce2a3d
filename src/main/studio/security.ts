// spec 5.1: the Playground is usable only on loopback. Besides binding 127.0.0.1 only, every
// request must name the studio itself (src/main/http/loopback.ts): a foreign Host (DNS
// rebinding) and a cross-site Origin are refused with 403 in the Playground's `detail`
// shape. No CORS headers are ever sent, so other origins cannot read answers either.
import type { RequestHandler } from 'express';
import { loopbackRefusal } from '../http/loopback.ts';

export { LOOPBACK_NAMES } from '../http/loopback.ts';

export interface OriginPolicy {
  /** The port the studio listens on (known after listen). */
  port: () => number;
  /** Further origins allowed to call (e.g. an Electron renderer served elsewhere). */
  extraOrigins?: readonly string[];
}

export function hostOriginGuard(policy: OriginPolicy): RequestHandler {
  const extra = (policy.extraOrigins ?? []).map((o) => o.toLowerCase());
  return (req, _res, next) => {
    next(loopbackRefusal(req, { port: policy.port(), extraOrigins: extra }) ?? undefined);
  };
}
