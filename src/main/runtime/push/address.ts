// Which addresses a push-notification callback may reach (docs/a2a-conformance.md, "Push
// notifications"; D-89). A webhook URL comes from a caller, so without a check it would let
// any caller make the runtime POST to its own loopback, the cloud metadata service
// (169.254.169.254) or the private network behind it. Refused unless PUSH_ALLOW_PRIVATE=1:
// every address that is not globally routable unicast, IPv4 written inside IPv6 (mapped,
// compatible, NAT64, 6to4) judged by the IPv4 address it carries.
import { isIP } from 'node:net';

/** [first octets, prefix length, what it is] for IPv4. */
const V4_BLOCKED: readonly [number[], number, string][] = [
  [[0], 8, 'this network'],
  [[10], 8, 'private'],
  [[100, 64], 10, 'shared address space (carrier-grade NAT)'],
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'],
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'IETF protocol assignments'],
  [[192, 0, 2], 24, 'documentation'],
  [[192, 88, 99], 24, '6to4 relay anycast'],
  [[192, 168], 16, 'private'],
  [[198, 18], 15, 'benchmarking'],
  [[198, 51, 100], 24, 'documentation'],
  [[203, 0, 113], 24, 'documentation'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'],
];

function inPrefix(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const take = Math.min(8, bits - i);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((prefix[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (with `::` and a trailing dotted quad), or null. */
export function v6Bytes(ip: string): number[] | null {
  const zone = ip.indexOf('%');
  let s = (zone >= 0 ? ip.slice(0, zone) : ip).toLowerCase();
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.slice(lastColon + 1).includes('.')) {
    const v4 = v4Bytes(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = v4;
    s = s.slice(0, lastColon + 1) + '0:0';
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...rest];
  const bytes: number[] = [];
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function v4Reason(bytes: number[]): string | null {
  for (const [prefix, bits, what] of V4_BLOCKED) if (inPrefix(bytes, prefix, bits)) return what;
  return null;
}

function v6Reason(b: number[]): string | null {
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zeros(0, 16)) return 'unspecified';
  if (zeros(0, 15) && b[15] === 1) return 'loopback';
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated): the IPv4 address decides.
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4Reason(b.slice(12));
  if (zeros(0, 12)) return v4Reason(b.slice(12)) ?? 'IPv4-compatible';
  // 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) reach the IPv4 address they embed.
  if (inPrefix(b, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96)) return v4Reason(b.slice(12));
  if (inPrefix(b, [0x20, 0x02], 16)) return v4Reason(b.slice(2, 6));
  if (inPrefix(b, [0x01, 0x00, 0, 0, 0, 0, 0, 0], 64)) return 'discard-only';
  if (inPrefix(b, [0x20, 0x01, 0x0d, 0xb8], 32)) return 'documentation';
  if (inPrefix(b, [0x20, 0x01, 0x00], 23)) return 'IETF protocol assignments';
  if (inPrefix(b, [0xfc], 7)) return 'unique local (private)';
  if (inPrefix(b, [0xfe, 0x80], 10)) return 'link-local';
  if (inPrefix(b, [0xfe, 0xc0], 10)) return 'site-local';
  if (inPrefix(b, [0xff], 8)) return 'multicast';
  return null;
}

/** Why `ip` (an IPv4 or IPv6 literal) is not a public unicast address, or null when it is.
 * Anything that does not parse is refused. */
export function blockedReason(ip: string): string | null {
  const family = isIP(ip.includes('%') ? ip.slice(0, ip.indexOf('%')) : ip);
  if (family === 4) return v4Reason(v4Bytes(ip)!);
  if (family === 6) {
    const bytes = v6Bytes(ip);
    return bytes ? v6Reason(bytes) : 'not an IP address';
  }
  return 'not an IP address';
}
