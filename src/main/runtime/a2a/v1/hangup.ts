// Whether the client of a 1.0 request has gone (D-86). The 1.x SDK's transports hand the
// request handler the request's headers (ServerCallContext state) but no signal; the bindings
// (routes.ts) tie one to that headers object, so a long follow (bridge.ts, SubscribeToTask)
// stops when its client hangs up.
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';

const signals = new WeakMap<IncomingHttpHeaders, AbortSignal>();

/** Express middleware: aborts the request's signal when its response closes. */
export const watchHangup: RequestHandler = (req, res, next) => {
  const hangup = new AbortController();
  res.once('close', () => hangup.abort());
  signals.set(req.headers, hangup.signal);
  next();
};

/** The signal of the request with these headers; one that never aborts when there is none. */
export function hangupSignal(headers: IncomingHttpHeaders): AbortSignal {
  return signals.get(headers) ?? new AbortController().signal;
}
