// The runtime's 0.3 errors as the 1.x SDK's (D-86): the same A2A error by its code, which
// each 1.0 binding then answers in its own shape (a JSON-RPC code; an HTTP status on HTTP+JSON).
// A store outage (D-50) is StoreUnavailableV1Error, which the 1.0 routes answer 503 (outage.ts).
import { A2AError as A2AError03 } from '@a2a-js/sdk/server';
import * as v1 from 'a2a-sdk-1/errors';
import { JSONRPC } from '../request-meta.ts';
import { rpcError, STORE_UNAVAILABLE_RPC } from '../store-outage.ts';

const BY_CODE: Record<number, new (o?: { message?: string }) => Error> = {
  [-32001]: v1.TaskNotFoundError,
  [-32002]: v1.TaskNotCancelableError,
  [-32003]: v1.PushNotificationNotSupportedError,
  [-32004]: v1.UnsupportedOperationError,
  [-32005]: v1.ContentTypeNotSupportedError,
  [-32006]: v1.InvalidAgentResponseError,
  [JSONRPC.INVALID_PARAMS]: v1.RequestMalformedError,
  [JSONRPC.INVALID_REQUEST]: v1.RequestMalformedError,
};

/** The reason a store outage's google.rpc.ErrorInfo names (spec 7.2's errorCode), with
 * metadata errorReason `store_unavailable` and retriable `true` (D-50). */
export const OUTAGE_REASON = 'UPSTREAM_UNAVAILABLE';

/** A store outage on a 1.0 binding: ErrorInfo {reason UPSTREAM_UNAVAILABLE}; the 1.0 routes
 * answer it as HTTP 503 with JSON-RPC code STORE_UNAVAILABLE_RPC (outage.ts). */
export class StoreUnavailableV1Error extends v1.A2AError {
  override readonly reason = OUTAGE_REASON;
  constructor(message: string) {
    super({ message, metadata: { errorReason: 'store_unavailable', retriable: 'true' } });
  }
}

/** A 0.3 A2AError as its 1.x counterpart, a store outage as StoreUnavailableV1Error; a 1.x
 * error or anything else as it is (an unexpected error is an internal error in both bindings). */
export function toV1Error(err: unknown): unknown {
  const e = rpcError(err);
  if (!(e instanceof A2AError03)) return e;
  if (e.code === STORE_UNAVAILABLE_RPC) return new StoreUnavailableV1Error(e.message);
  const cls = BY_CODE[e.code];
  return cls ? new cls({ message: e.message }) : e;
}
