// Converts every failure of the Playground routes to `{detail: {error, message, ...}}`
// (spec 7.3) once, at the edge: PlaygroundErrors by their code table, zod failures as 400
// invalid_request with the issues, body-parser failures as 400/413, anything else as 500.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { PlaygroundError } from '../errors.ts';

export function toPlaygroundError(err: unknown): PlaygroundError | null {
  if (err instanceof PlaygroundError) return err;
  if (err instanceof ZodError) {
    const first = err.issues[0];
    const where = first?.path.length ? `${first.path.join('.')}: ` : '';
    return new PlaygroundError('invalid_request', `${where}${first?.message ?? 'invalid request'}`, {
      issues: err.issues.map((i) => ({ path: i.path, code: i.code, message: i.message })),
    });
  }
  const type = (err as { type?: string } | null)?.type;
  if (type === 'entity.parse.failed') return new PlaygroundError('invalid_request', 'the request body is not valid JSON');
  if (type === 'entity.too.large') return new PlaygroundError('payload_too_large', 'the request body is larger than the 25 MB limit');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new PlaygroundError('unsupported_media_type', 'the request body must be UTF-8 JSON');
  }
  return null;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    let known = toPlaygroundError(err);
    if (!known) {
      logger.error({ err, method: req.method, path: req.path }, 'request failed');
      known = new PlaygroundError('internal_error', 'the studio could not complete the request');
    }
    res.status(known.status).json(known.toBody());
  };
}

/** 415 for a request body that is not JSON (only bodies that exist are checked: a rerun
 * may come with no body at all). */
export const requireJsonBody: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (hasBody && !req.is('application/json')) {
    next(new PlaygroundError('unsupported_media_type', `send the body as application/json (got '${req.headers['content-type'] ?? 'no content type'}')`));
    return;
  }
  next();
};

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(new PlaygroundError('not_found', `no endpoint ${req.method} ${req.originalUrl.split('?')[0]}`));
};
