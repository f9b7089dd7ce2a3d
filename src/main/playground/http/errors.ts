// Converts every failure of the Playground routes to `{detail: {error, message, ...}}`
// (spec 7.3) once, at the edge: PlaygroundErrors by their code table, zod failures as 400
// invalid_request with the issues, body-parser failures as 400/413, anything else as 500.
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { PlaygroundError, type PlaygroundErrorCode } from '../errors.ts';
import { fromClientHttpError, HttpInputError, type HttpInputCode } from '../../http/input-error.ts';

/** Edge refusals (src/main/http) in the Playground's codes. */
const INPUT_CODES: Record<HttpInputCode, PlaygroundErrorCode> = {
  bad_request_target: 'invalid_request',
  invalid_path_encoding: 'invalid_request',
  invalid_json: 'invalid_request',
  json_too_deep: 'invalid_request',
  body_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
  forbidden_host: 'forbidden_host',
  forbidden_origin: 'forbidden_origin',
  bad_request: 'invalid_request',
  range_not_satisfiable: 'range_not_satisfiable',
};

export function toPlaygroundError(err: unknown): PlaygroundError | null {
  if (err instanceof PlaygroundError) return err;
  if (err instanceof HttpInputError) return new PlaygroundError(INPUT_CODES[err.code], err.message);
  const clientError = fromClientHttpError(err);
  if (clientError) return new PlaygroundError(INPUT_CODES[clientError.code], clientError.message);
  if (err instanceof ZodError) {
    // Bounded: a body with 100,000 unknown keys must not produce a bigger answer.
    const first = err.issues[0];
    const where = first?.path.length ? `${first.path.join('.')}: ` : '';
    return new PlaygroundError('invalid_request', clip(`${where}${first?.message ?? 'invalid request'}`), {
      issues: err.issues.slice(0, 20).map((i) => ({ path: i.path.slice(0, 10), code: i.code, message: clip(i.message) })),
      ...(err.issues.length > 20 ? { more_issues: err.issues.length - 20 } : {}),
    });
  }
  return null;
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (res.headersSent) return next(err);
    // A static file may have set its own type and validators before it failed.
    for (const h of ['content-type', 'content-disposition', 'etag', 'last-modified', 'cache-control']) res.removeHeader(h);
    let known = toPlaygroundError(err);
    if (!known) {
      logger.error({ err, method: req.method, path: req.path }, 'request failed');
      known = new PlaygroundError('internal_error', 'the studio could not complete the request');
    }
    res.status(known.status).json(known.toBody());
  };
}

export const notFoundRoute: RequestHandler = (req, _res, next) => {
  next(new PlaygroundError('not_found', `no endpoint ${req.method} ${req.originalUrl.split('?')[0]}`));
};
