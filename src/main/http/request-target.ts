// The request line and Host header, checked before routing on both servers (docs/security.md):
//   - exactly one Host header: two of them let a proxy and this server disagree on which
//     site was asked for;
//   - an absolute-form target (`GET http://other.example/x`) must name the Host it came
//     with; it is then routed by its path like any other request;
//   - the path must be valid percent-encoding, so no route sees a value it cannot decode.
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { HttpInputError } from './input-error.ts';

const REFUSAL = Symbol('requestTargetRefusal');
type Screened = IncomingMessage & { [REFUSAL]?: HttpInputError };

/** Runs before Express sees the request (Express computes its routing from the original
 * target), turning an absolute-form target into its path. A refusal is kept on the request
 * for requestTargetGuard, so it is answered in the surface's own error shape. */
export function screenRequestTarget(req: IncomingMessage): void {
  const refusal = checkTarget(req);
  if (refusal) (req as Screened)[REFUSAL] = refusal;
}

/** Whether screenRequestTarget refused the request (a route answered before Express defers to it). */
export function targetRefused(req: IncomingMessage): boolean {
  return (req as Screened)[REFUSAL] !== undefined;
}

/** The first middleware of an app whose server calls screenRequestTarget. */
export function requestTargetGuard(): RequestHandler {
  return (req, _res, next) => next((req as Screened)[REFUSAL]);
}

function checkTarget(req: IncomingMessage): HttpInputError | null {
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === 'host') hosts += 1;
  if (hosts > 1) return new HttpInputError('bad_request_target', 'the request has more than one Host header');
  const target = req.url ?? '/';
  if (!target.startsWith('/')) {
    let absolute: URL;
    try {
      absolute = new URL(target);
    } catch {
      return new HttpInputError('bad_request_target', 'the request target must be a path');
    }
    const host = (req.headers.host ?? '').toLowerCase();
    if ((absolute.protocol !== 'http:' && absolute.protocol !== 'https:') || absolute.host.toLowerCase() !== host) {
      return new HttpInputError('bad_request_target', `the request target names another host than the Host header ('${host || '(none)'}')`);
    }
    req.url = `${absolute.pathname}${absolute.search}`;
  }
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  try {
    decodeURIComponent(q === -1 ? url : url.slice(0, q));
  } catch {
    return new HttpInputError('invalid_path_encoding', 'the request path has an invalid percent-encoding');
  }
  return null;
}
