// The callback's address, checked on what its name resolves to (D-89): at configuration time,
// so a caller learns at once that a URL is refused, and again at each delivery, where the
// connection is pinned to the addresses just checked (the HTTP client's `lookup` answers only
// them), so a name that re-resolves to a private address between the check and the connect
// (DNS rebinding) is never reached.
import dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { blockedReason } from './address.ts';

export class TargetRefusedError extends Error {}

/** Resolves `host` (a name; an address literal answers itself) and refuses it
 * (TargetRefusedError) when any of its addresses is blocked; a name that does not resolve is
 * the resolver's error (tried again at the next delivery). */
export async function checkedAddresses(host: string, allowPrivate: boolean): Promise<dns.LookupAddress[]> {
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await dns.promises.lookup(host, { all: true, verbatim: true });
  if (addresses.length === 0) throw new Error(`${host} resolves to no address`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const why = blockedReason(a.address);
      if (why) throw new TargetRefusedError(`${host} resolves to ${a.address}, a ${why} address, which push notifications may not reach (PUSH_ALLOW_PRIVATE)`);
    }
  }
  return addresses;
}

/** The `lookup` of an HTTP request: the checked addresses of the host, nothing else. */
export function pinnedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, allowPrivate).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = family ? addresses.filter((a) => a.family === family) : addresses;
        if (usable.length === 0) return callback(new TargetRefusedError(`${hostname} has no IPv${family} address`), '', 0);
        if (options.all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, usable);
        callback(null, usable[0].address, usable[0].family);
      },
      (err: Error) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };
}
