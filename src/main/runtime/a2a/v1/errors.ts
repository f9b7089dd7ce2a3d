// The runtime's 0.3 errors as the 1.x SDK's (D-86): the same A2A error by its code, which
// each 1.0 binding then answers in its own shape (a JSON-RPC code; an HTTP status on HTTP+JSON).
import { A2AError as A2AError03 } from '@a2a-js/sdk/server';
import * as v1 from 'a2a-sdk-1/errors';
import { JSONRPC } from '../request-meta.ts';

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

/** A 0.3 A2AError as its 1.x counterpart; a 1.x error or anything else as it is (an
 * unexpected error is an internal error in both bindings). */
export function toV1Error(err: unknown): unknown {
  if (!(err instanceof A2AError03)) return err;
  const cls = BY_CODE[err.code];
  return cls ? new cls({ message: err.message }) : err;
}
