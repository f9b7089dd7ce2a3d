// Who may call a server bound to loopback (docs/security.md). A web page the user visits can
// reach 127.0.0.1 too: by DNS rebinding (its own host name resolving to 127.0.0.1, so the
// Host header names it) or by a cross-site request (its Origin, or Sec-Fetch-Site:
// cross-site when a browser omits Origin). Both are refused; tools that send no Origin
// (curl, the A2A client, the studio) are not affected.
import type { IncomingMessage } from 'node:http';
import { HttpInputError } from './input-error.ts';

export const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** True for an address a server can bind that only this machine reaches. */
export function isLoopbackAddress(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The Host values that name this server on `port`. */
export function loopbackHosts(port: number): Set<string> {
  return new Set(LOOPBACK_NAMES.map((h) => `${h}:${port}`));
}

/** The origins of pages served by this server itself. */
export function loopbackOrigins(port: number): Set<string> {
  return new Set(LOOPBACK_NAMES.map((h) => `http://${h}:${port}`));
}

export interface LoopbackPolicy {
  port: number;
  /** Origins allowed besides this server's own (lower-case, no trailing slash). */
  extraOrigins?: Iterable<string>;
}

/** The refusal for a request that does not come from this machine's own tools or pages, or null. */
export function loopbackRefusal(req: IncomingMessage, policy: LoopbackPolicy): HttpInputError | null {
  const host = (req.headers.host ?? '').toLowerCase();
  if (!loopbackHosts(policy.port).has(host)) {
    return new HttpInputError(
      'forbidden_host',
      `this server answers only to 127.0.0.1:${policy.port} or localhost:${policy.port}, not to Host '${host || '(none)'}' (DNS rebinding protection)`,
    );
  }
  const origin = req.headers.origin;
  if (origin !== undefined) {
    const o = origin.toLowerCase();
    if (!loopbackOrigins(policy.port).has(o) && !new Set(policy.extraOrigins ?? []).has(o)) {
      return new HttpInputError('forbidden_origin', `requests from origin '${origin}' are refused: only this server's own pages may call it`);
    }
  } else if (req.headers['sec-fetch-site'] === 'cross-site') {
    return new HttpInputError('forbidden_origin', 'cross-site requests are refused');
  }
  return null;
}
