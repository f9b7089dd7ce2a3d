// API keys (docs/security.md, "Deployed runtime: authentication"; D-46). The runtime stores
// no key, only `name:sha256hex` entries: keys are 32 random bytes, so a plain SHA-256 of the
// key cannot be searched backwards and needs no salt or slow hash. A presented key is hashed
// and compared with every entry in constant time; the answer is the entry's name.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** One `name:sha256hex` entry of A2A_API_KEYS or MANAGEMENT_API_KEYS. */
export interface ApiKeyEntry {
  /** The principal the key acts as (shown in logs and traces; the key never is). */
  readonly name: string;
  /** SHA-256 of the key (32 bytes). */
  readonly hash: Buffer;
}

/** What a key name may be: letters, digits and `. _ @ + -`, 1 to 128 characters. */
export const KEY_NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;

/** A presented key longer than this is refused before it is hashed (a key is 43 characters). */
const MAX_KEY_LENGTH = 1024;

export function sha256(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/** Whether a presented secret is `token`, compared in constant time (of equal-length digests). */
export function sameToken(presented: string, token: string): boolean {
  return timingSafeEqual(sha256(presented), sha256(token));
}

/** `name:hex` -> an entry, or the reason it is not one. */
export function parseKeyEntry(entry: string): ApiKeyEntry | string {
  const colon = entry.lastIndexOf(':');
  if (colon <= 0) return `'${entry}' is not name:sha256hex`;
  const name = entry.slice(0, colon).trim();
  const hex = entry.slice(colon + 1).trim();
  if (!KEY_NAME.test(name)) return `the name '${name}' must be 1-128 letters, digits or . _ @ + - (starting with a letter or digit)`;
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return `the hash of '${name}' must be 64 hex digits (the SHA-256 of the key, see \`agent-studio runtime keys new\`)`;
  return { name, hash: Buffer.from(hex, 'hex') };
}

/** The keys of one list: which name a presented key belongs to. */
export class KeyRing {
  constructor(readonly entries: readonly ApiKeyEntry[]) {}

  get size(): number {
    return this.entries.length;
  }

  /** The name of the entry whose hash is the key's, or null. Every entry is compared (no early
   * exit), each in constant time, so the answer's timing says nothing about the entries. */
  nameOf(key: string): string | null {
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) return null;
    const hash = sha256(key);
    let found: string | null = null;
    for (const e of this.entries) if (timingSafeEqual(hash, e.hash) && found === null) found = e.name;
    return found;
  }
}

/** A fresh key (32 random bytes, base64url) and the entry line naming it. */
export function newKey(name: string): { key: string; entry: string } {
  const key = randomBytes(32).toString('base64url');
  return { key, entry: `${name}:${sha256(key).toString('hex')}` };
}
