// The one JSON body reader of both servers: only `application/json` (415 otherwise), UTF-8,
// identity/gzip/deflate/br, a size limit, and a nesting-depth limit checked right after the
// parse. Every failure reaches the route's error handler as an HttpInputError, so no
// body-parser error (or its stack) ever reaches a client.
import express, { type RequestHandler } from 'express';
import { fromBodyParserError, HttpInputError } from './input-error.ts';
import { exceedsDepth, MAX_JSON_DEPTH } from './json-depth.ts';

export interface JsonBodyOptions {
  /** body-parser size limit, e.g. '25mb'. */
  limit: string;
  maxDepth?: number;
}

/** True when the request carries a body (a declared length above 0, or chunked). */
export function hasBody(req: { headers: Record<string, string | string[] | undefined> }): boolean {
  const length = req.headers['content-length'];
  return (typeof length === 'string' && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

export function jsonBody(opts: JsonBodyOptions): RequestHandler {
  const parse = express.json({ limit: opts.limit, type: 'application/json', strict: true });
  const maxDepth = opts.maxDepth ?? MAX_JSON_DEPTH;
  return (req, res, next) => {
    if (!hasBody(req)) return next();
    if (!req.is('application/json')) {
      next(new HttpInputError('unsupported_media_type', `send the body as application/json (got '${req.headers['content-type'] ?? 'no content type'}')`));
      return;
    }
    // UTF-8 only (body-parser would also decode UTF-16 and UTF-32).
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      next(new HttpInputError('unsupported_media_type', `unsupported charset '${charset}': send the body as UTF-8 JSON`));
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err) {
        next(fromBodyParserError(err, opts.limit) ?? err);
        return;
      }
      if (exceedsDepth(req.body, maxDepth)) {
        next(new HttpInputError('json_too_deep', `the JSON body nests deeper than ${maxDepth} levels`));
        return;
      }
      next();
    });
  };
}
