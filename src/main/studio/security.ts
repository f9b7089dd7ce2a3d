// spec 5.1 and issue 3 section 8: the Playground is usable only on loopback. Besides
// binding 127.0.0.1 only, every request must name the studio itself:
//   - Host must be 127.0.0.1:<port> or localhost:<port>: a DNS-rebinding page reaches the
//     socket under its own host name, which is refused;
//   - Origin, when present, must be the studio's own origin: cross-site requests are
//     refused. No CORS headers are ever sent, so other origins cannot read answers either.
// Refusals are 403 with a JSON body.
import type { RequestHandler } from 'express';
import { PlaygroundError } from '../playground/errors.ts';

export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost'] as const;

export interface OriginPolicy {
  /** The port the studio listens on (known after listen). */
  port: () => number;
  /** Further origins allowed to call (e.g. an Electron renderer served elsewhere). */
  extraOrigins?: readonly string[];
}

export function allowedHosts(port: number): Set<string> {
  return new Set(LOOPBACK_NAMES.map((h) => `${h}:${port}`));
}

export function hostOriginGuard(policy: OriginPolicy): RequestHandler {
  return (req, res, next) => {
    const port = policy.port();
    const host = (req.headers.host ?? '').toLowerCase();
    let refusal: PlaygroundError | null = null;
    if (!allowedHosts(port).has(host)) {
      refusal = new PlaygroundError('forbidden_host', `the studio answers only to 127.0.0.1:${port} or localhost:${port}, not to Host '${host || '(none)'}' (DNS rebinding protection)`);
    } else {
      const origin = req.headers.origin;
      const allowed = new Set([...LOOPBACK_NAMES.map((h) => `http://${h}:${port}`), ...(policy.extraOrigins ?? [])]);
      if (origin !== undefined && !allowed.has(origin.toLowerCase())) {
        refusal = new PlaygroundError('forbidden_origin', `requests from origin '${origin}' are refused: only the studio's own pages may call it`);
      } else if (origin === undefined && req.headers['sec-fetch-site'] === 'cross-site') {
        // A browser that omits Origin (a no-cors GET) still says where the request came from.
        refusal = new PlaygroundError('forbidden_origin', 'cross-site requests are refused');
      }
    }
    if (refusal) {
      res.status(refusal.status).json(refusal.toBody());
      return;
    }
    next();
  };
}
