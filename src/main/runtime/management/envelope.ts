// The management API envelope (spec 2.1) and its errors (spec 7.1). One error class with
// stable codes; one table maps codes to HTTP statuses; conversion happens once, here.
import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { fromClientHttpError, HttpInputError, type HttpInputCode } from '../../http/input-error.ts';
import { outageOf, STORE_UNAVAILABLE_MESSAGE } from '../store/unavailable.ts';

/** Edge refusals (src/main/http) in the envelope's codes. */
const INPUT_CODES: Record<HttpInputCode, ManagementCode> = {
  bad_request_target: 'BAD_REQUEST',
  invalid_path_encoding: 'BAD_REQUEST',
  invalid_json: 'INVALID_BODY',
  json_too_deep: 'INVALID_BODY',
  body_too_large: 'PAYLOAD_TOO_LARGE',
  unsupported_media_type: 'UNSUPPORTED_MEDIA_TYPE',
  forbidden_host: 'FORBIDDEN_HOST',
  forbidden_origin: 'FORBIDDEN_ORIGIN',
  bad_request: 'BAD_REQUEST',
  range_not_satisfiable: 'BAD_REQUEST',
};

export const MANAGEMENT_ERRORS = {
  MEMORY_DISABLED: 404,
  AGENT_ID_REQUIRED: 409,
  IMMUTABLE_FIELD: 422,
  /** A runtime setting fixed by the environment (PUBLIC_AGENT_URL): change it there (docs/management-api.md). */
  SETTING_PINNED: 409,
  INVALID_BODY: 400,
  INVALID_PARAM: 400,
  MISSING_THREAD_ID: 400,
  THREAD_NOT_FOUND: 404,
  /** The debugger's endpoints (docs/playground-api.md): no such checkpoint in the thread. */
  CHECKPOINT_NOT_FOUND: 404,
  FORBIDDEN: 403,
  RUNTIME_UNAVAILABLE: 409,
  /** The playground's model call (D-100) with no provider configured (the offline scripted model). */
  MODEL_NOT_CONFIGURED: 409,
  /** Unknown route under /api/v1 (docs/management-api.md). */
  NOT_FOUND: 404,
  /** A registry reload that fails validation; the old generation keeps serving. */
  RELOAD_FAILED: 409,
  /** No operator credential where one is needed (docs/security.md, "Deployed runtime: authentication"). */
  UNAUTHORIZED: 401,
  /** A caller's credential (A2A_API_KEYS, a caller JWT) presented to the management API. */
  OPERATOR_CREDENTIAL_REQUIRED: 403,
  /** A foreign Host or a cross-site Origin on a loopback-bound runtime (docs/security.md). */
  FORBIDDEN_HOST: 403,
  FORBIDDEN_ORIGIN: 403,
  /** A malformed request line: two Host headers, another host in the target, a bad %-encoding. */
  BAD_REQUEST: 400,
  PAYLOAD_TOO_LARGE: 413,
  /** A body that is not application/json (UTF-8, identity/gzip/deflate/br). */
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** A failure the runtime did not expect: logged with its stack; the request may be retried. */
  INTERNAL_ERROR: 500,
  /** The runtime is draining (SIGTERM): no new requests (docs/deployment.md, "Shutdown and health"). */
  SHUTTING_DOWN: 503,
  /** The store (SQLite file, PostgreSQL) cannot be reached or written; retry later (docs/deployment.md,
   * "When the store is unreachable"). */
  STORE_UNAVAILABLE: 503,
} as const;

export type ManagementCode = keyof typeof MANAGEMENT_ERRORS;

export class ManagementError extends Error {
  constructor(
    readonly code: ManagementCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export function ok(res: Response, data: unknown): void {
  res.status(200).json({ success: true, data, error: null });
}

export function fail(res: Response, err: ManagementError): void {
  res.status(MANAGEMENT_ERRORS[err.code]).json({ success: false, data: null, error: { code: err.code, message: err.message, ...err.extra } });
}

/** Any error as a ManagementError: thrown ones as they are, edge refusals by their code, a store
 * outage as STORE_UNAVAILABLE, and anything else as INTERNAL_ERROR, logged with its stack (never sent to the client). */
export function toManagementError(err: unknown, log: Logger, where: string): ManagementError {
  if (err instanceof ManagementError) return err;
  if (err instanceof HttpInputError) return new ManagementError(INPUT_CODES[err.code], err.message);
  const clientError = fromClientHttpError(err);
  if (clientError) return new ManagementError(INPUT_CODES[clientError.code], clientError.message);
  // Logged once when the outage starts (store/guard.ts); the answer names no address.
  if (outageOf(err) !== null) return new ManagementError('STORE_UNAVAILABLE', STORE_UNAVAILABLE_MESSAGE, { retriable: true });
  log.error({ err, where }, 'management request failed unexpectedly');
  return new ManagementError(
    'INTERNAL_ERROR',
    'The runtime failed unexpectedly while handling this request; it has been logged. Retry, or report it with the runtime log.',
  );
}

/** The envelope for every error of the routes it follows. */
export function managementErrorHandler(log: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    fail(res, toManagementError(err, log, `${req.method} ${req.path}`));
  };
}
