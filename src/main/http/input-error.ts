// Input refused at the HTTP edge, before any surface-specific code runs: a malformed request
// target, a body that is not JSON we can read, a foreign Host or a cross-site Origin. Each
// server turns it into its own error shape once (runtime: JSON-RPC error or management
// envelope; studio: Playground `detail`), so the same defect class gets the same status on
// every surface (docs/security.md).
export const HTTP_INPUT_ERRORS = {
  /** Two Host headers, an absolute-form target naming another host, or a target that is not a path. */
  bad_request_target: 400,
  /** A path segment with an invalid percent-encoding (`%ZZ`, a lone `%`). */
  invalid_path_encoding: 400,
  /** The body is not valid JSON, or is corrupt under its Content-Encoding. */
  invalid_json: 400,
  /** JSON nested deeper than MAX_JSON_DEPTH. */
  json_too_deep: 400,
  body_too_large: 413,
  /** A body that is not `application/json`, in a charset other than UTF-8, or in an unknown Content-Encoding. */
  unsupported_media_type: 415,
  forbidden_host: 403,
  forbidden_origin: 403,
  /** Any other client error a library raised. */
  bad_request: 400,
  /** A Range header a static file cannot satisfy. */
  range_not_satisfiable: 416,
} as const;

export type HttpInputCode = keyof typeof HTTP_INPUT_ERRORS;

export class HttpInputError extends Error {
  override readonly name = 'HttpInputError';
  constructor(
    readonly code: HttpInputCode,
    message: string,
  ) {
    super(message);
  }

  get status(): number {
    return HTTP_INPUT_ERRORS[this.code];
  }
}

/** body-parser's failures (by their `type`) as HttpInputErrors; null for anything else. */
export function fromBodyParserError(err: unknown, limitText: string): HttpInputError | null {
  const e = err as { type?: string; status?: number; code?: string; message?: string } | null;
  if (!e || typeof e !== 'object') return null;
  switch (e.type) {
    case 'entity.parse.failed':
      return new HttpInputError('invalid_json', 'the request body is not valid JSON');
    case 'entity.too.large':
      return new HttpInputError('body_too_large', `the request body is larger than the ${limitText} limit`);
    case 'encoding.unsupported':
      return new HttpInputError('unsupported_media_type', `unsupported Content-Encoding: send the body as identity, gzip, deflate or br`);
    case 'charset.unsupported':
      return new HttpInputError('unsupported_media_type', 'unsupported charset: send the body as UTF-8 JSON');
    case 'request.size.invalid':
    case 'request.aborted':
      return new HttpInputError('invalid_json', 'the request body ended before its declared length');
    default:
      break;
  }
  // A corrupt gzip/deflate/br body surfaces as a zlib error (Z_DATA_ERROR, Z_BUF_ERROR,
  // brotli's ERR__ERROR_FORMAT_...).
  if (typeof e.code === 'string' && /^(Z_|ERR_BROTLI|ERR__ERROR)/.test(e.code)) {
    return new HttpInputError('invalid_json', 'the request body is corrupt under its Content-Encoding');
  }
  if (e.status === 400 || e.status === 415 || e.status === 413) {
    return new HttpInputError(
      e.status === 413 ? 'body_too_large' : e.status === 415 ? 'unsupported_media_type' : 'invalid_json',
      e.message ?? 'the request body cannot be read',
    );
  }
  return null;
}

/** A client error (4xx) some library raised with http-errors (`expose` set, so its message
 * is meant for the client): an HttpInputError, so it is never mistaken for a defect. */
export function fromClientHttpError(err: unknown): HttpInputError | null {
  const e = err as { status?: unknown; expose?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object' || e.expose !== true || typeof e.status !== 'number' || e.status < 400 || e.status > 499) return null;
  const message = typeof e.message === 'string' ? e.message : 'the request cannot be served';
  return new HttpInputError(e.status === 416 ? 'range_not_satisfiable' : 'bad_request', message);
}
