// A store outage on the 1.0 bindings answered as on 0.3 (D-50): HTTP 503, the JSON-RPC code
// STORE_UNAVAILABLE_RPC (-32021) or the HTTP+JSON status UNAVAILABLE, with 1.0's error detail
// (google.rpc.ErrorInfo, reason UPSTREAM_UNAVAILABLE, errorReason store_unavailable). The 1.x
// SDK answers an error it has no code for as an internal one; this rewrites that answer by the
// ErrorInfo the bridge's StoreUnavailableV1Error carries (errors.ts), before it is sent.
import type { Response } from 'express';
import { STORE_UNAVAILABLE_RPC } from '../store-outage.ts';
import { OUTAGE_REASON } from './errors.ts';

type Info = { reason?: unknown; metadata?: { errorReason?: unknown } };

function isOutage(details: unknown): boolean {
  return Array.isArray(details) && details.some((d: Info) => d?.reason === OUTAGE_REASON && d.metadata?.errorReason === 'store_unavailable');
}

/** Rewrites `res`'s JSON answer when it is a store outage, for `binding`'s error shape. */
export function answerOutage(res: Response, binding: 'jsonrpc' | 'rest'): void {
  const json = res.json.bind(res);
  res.json = (body?: { error?: { code?: unknown; status?: unknown; data?: unknown; details?: unknown } }) => {
    const error = body?.error;
    if (error && binding === 'jsonrpc' && isOutage(error.data)) {
      res.status(503);
      error.code = STORE_UNAVAILABLE_RPC;
    } else if (error && binding === 'rest' && isOutage(error.details)) {
      res.status(503);
      error.code = 503;
      error.status = 'UNAVAILABLE';
    }
    return json(body);
  };
}
