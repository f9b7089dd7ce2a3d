// The management API envelope (spec 2.1) and its errors (spec 7.1). One error class with
// stable codes; one table maps codes to HTTP statuses; conversion happens once, here.
import type { ErrorRequestHandler, Response } from 'express';

export const MANAGEMENT_ERRORS = {
  MEMORY_DISABLED: 404,
  AGENT_ID_REQUIRED: 409,
  IMMUTABLE_FIELD: 422,
  INVALID_BODY: 400,
  INVALID_PARAM: 400,
  MISSING_THREAD_ID: 400,
  THREAD_NOT_FOUND: 404,
  FORBIDDEN: 403,
  RUNTIME_UNAVAILABLE: 409,
  /** Unknown route under /api/v1 (docs/management-api.md). */
  NOT_FOUND: 404,
  /** A registry reload that fails validation; the old generation keeps serving. */
  RELOAD_FAILED: 409,
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

/** Malformed JSON bodies and thrown ManagementErrors become envelopes. */
export const managementErrorHandler: ErrorRequestHandler = (err, _req, res, next) => {
  if (res.headersSent) return next(err);
  if (err instanceof ManagementError) return fail(res, err);
  if (err?.type === 'entity.parse.failed') return fail(res, new ManagementError('INVALID_BODY', 'The request body is not valid JSON.'));
  if (err?.type === 'entity.too.large') return fail(res, new ManagementError('INVALID_BODY', 'The request body is too large.'));
  fail(res, new ManagementError('RUNTIME_UNAVAILABLE', `The runtime could not complete the request: ${(err as Error)?.message ?? err}`));
};
