// The trace capture route's common case answered before Express (D-108; docs/performance.md,
// "Experiments"): the runtime child posts a run's trace events a few times a run, and routing,
// body-parser and the JSON response of Express cost about as much as the events' own work.
// It takes only a request that passes every edge check the Express stack makes: POST to the
// exact capture path, a target screenRequestTarget accepted, the loopback Host and Origin
// rules (docs/security.md), `application/json` with no Content-Encoding, a declared length
// within the route's 10 MB, and the studio not shutting down. Anything else goes to Express
// unchanged. The body it reads is checked as the route checks it (strict JSON, the nesting
// limit, the contract's strict CaptureBody), and refusals have the Playground's error shape.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { exceedsDepth, MAX_JSON_DEPTH } from '../http/json-depth.ts';
import { loopbackRefusal } from '../http/loopback.ts';
import { HttpInputError } from '../http/input-error.ts';
import { targetRefused } from '../http/request-target.ts';
import { PlaygroundError } from '../playground/errors.ts';
import { toPlaygroundError } from '../playground/http/errors.ts';
import { CAPTURE_PATH, StrictRuntimeSchemas } from '../../shared/runtime-contract.ts';

/** The Express route's limit (capture.ts: `jsonBody({ limit: '10mb' })`). */
const LIMIT = 10 * 1024 * 1024;

export interface CaptureFastOptions {
  port: () => number;
  extraOrigins?: readonly string[];
  closing: () => boolean;
  executor: { capture(token: string, events: readonly Record<string, unknown>[]): boolean };
  logger: Logger;
}

/** The studio's request listener: the capture route's common case here, the rest to `app`. */
export function captureFirst(app: RequestListener, o: CaptureFastOptions): RequestListener {
  const fast = captureFastPath(o);
  return (req, res) => {
    if (!fast(req, res)) app(req, res);
  };
}

/** Answers true when it took the request (it then answers it); false leaves it to Express. */
export function captureFastPath(o: CaptureFastOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const extra = (o.extraOrigins ?? []).map((x) => x.toLowerCase());
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== CAPTURE_PATH || o.closing() || targetRefused(req)) return false;
    const h = req.headers;
    const length = h['content-length'];
    if (h['content-type'] !== 'application/json' || h['transfer-encoding'] !== undefined || typeof length !== 'string' || !/^[1-9]\d{0,8}$/.test(length))
      return false;
    if ((h['content-encoding'] ?? 'identity').toLowerCase() !== 'identity' || Number(length) > LIMIT) return false;
    if (loopbackRefusal(req, { port: o.port(), extraOrigins: extra })) return false;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    // An aborted body has no one left to answer (body-parser's refusal would go nowhere either).
    req.on('error', () => undefined);
    req.on('end', () => {
      let status = 200;
      let body: unknown;
      try {
        body = { accepted: take(Buffer.concat(chunks), o.executor) };
      } catch (err) {
        let known = toPlaygroundError(err);
        if (!known) {
          o.logger.error({ err, method: req.method, path: CAPTURE_PATH }, 'request failed');
          known = new PlaygroundError('internal_error', 'the studio could not complete the request');
        }
        status = known.status;
        body = known.toBody();
      }
      const text = JSON.stringify(body);
      res.writeHead(status, {
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(text),
      });
      res.end(text);
    });
    return true;
  };
}

/** The route's own work on the body's bytes; answers how many events were accepted. */
function take(bytes: Buffer, executor: CaptureFastOptions['executor']): number {
  // As body-parser reads it: UTF-8 without a BOM, strict (an object or an array), blank is {}.
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
  const first = /^[ \t\n\r]*(.)/.exec(text)?.[1];
  let value: unknown = {};
  if (first !== undefined) {
    if (first !== '{' && first !== '[') throw new HttpInputError('invalid_json', 'the request body is not valid JSON');
    try {
      value = JSON.parse(text);
    } catch {
      throw new HttpInputError('invalid_json', 'the request body is not valid JSON');
    }
  }
  if (exceedsDepth(value, MAX_JSON_DEPTH)) throw new HttpInputError('json_too_deep', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`);
  const body = StrictRuntimeSchemas.CaptureBody.parse(value ?? {});
  if (!executor.capture(body.capture_token, body.events)) throw new PlaygroundError('not_found', 'unknown capture token: it was not issued for an active run');
  return body.events.length;
}
