// A push-notification configuration as a caller gives it (A2A 0.3.0 PushNotificationConfig;
// A2A 1.0 has the same fields), checked before it is stored (docs/a2a-conformance.md, "Push
// notifications"). Version-independent: each binding names its own field prefix.
import { blockedReason } from './address.ts';
import { isIP } from 'node:net';

export interface PushAuth {
  schemes: string[];
  credentials?: string;
}

export interface PushConfig {
  id: string;
  url: string;
  token?: string;
  authentication?: PushAuth;
  /** The A2A version whose binding stored it ('1.0'); absent: 0.3. Its notifications are sent
   * in that version's shape (PushServiceDeps.bodies; D-104). */
  version?: string;
}

/** Input refused: `field` names it the JSON-RPC way (error.data.field). */
export class PushInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export const MAX_URL = 2048;
export const MAX_TOKEN = 1024;
export const MAX_ID = 256;
/** Configurations one task may have. */
export const MAX_CONFIGS_PER_TASK = 10;
/** The authentication schemes the runtime can send (as `Authorization: <scheme> <credentials>`). */
const SCHEMES = new Map([
  ['bearer', 'Bearer'],
  ['basic', 'Basic'],
]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The host of a URL as a bare address or name (IPv6 without its brackets). */
export function hostOf(u: URL): string {
  return u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname;
}

/** Checks the configuration's shape and its URL's syntax, and refuses a URL whose host is a
 * blocked address literal (the name's addresses are checked by target.ts). `at` is the field of
 * the configuration itself; `defaultId` the id when it has none (the task id, as the SDKs do). */
export function parseConfig(input: unknown, at: string, defaultId: string, allowPrivate: boolean): PushConfig {
  if (!isObject(input)) throw new PushInputError(at, `Invalid params: ${at} must be an object`);
  const bad = (f: string, why: string) => new PushInputError(`${at}.${f}`, `Invalid params: ${at}.${f} ${why}`);
  if (typeof input.url !== 'string' || !input.url) throw bad('url', 'is required and must be a non-empty string');
  if (input.url.length > MAX_URL) throw bad('url', `must be at most ${MAX_URL} characters`);
  let u: URL;
  try {
    u = new URL(input.url);
  } catch {
    throw bad('url', 'must be an absolute http or https URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw bad('url', 'must be an absolute http or https URL');
  if (u.username || u.password) throw bad('url', 'must not carry credentials (use authentication or token)');
  const host = hostOf(u);
  if (!allowPrivate && isIP(host)) {
    const why = blockedReason(host);
    if (why) throw bad('url', `targets a ${why} address, which push notifications may not reach (PUSH_ALLOW_PRIVATE)`);
  }
  if (input.id !== undefined && (typeof input.id !== 'string' || !input.id || input.id.length > MAX_ID))
    throw bad('id', `must be a non-empty string of at most ${MAX_ID} characters`);
  if (input.token !== undefined && (typeof input.token !== 'string' || input.token.length > MAX_TOKEN))
    throw bad('token', `must be a string of at most ${MAX_TOKEN} characters`);
  const config: PushConfig = { id: (input.id as string | undefined) ?? defaultId, url: input.url };
  if (typeof input.token === 'string' && input.token) config.token = input.token;
  if (input.authentication !== undefined) config.authentication = parseAuth(input.authentication, `${at}.authentication`);
  return config;
}

function parseAuth(a: unknown, at: string): PushAuth {
  if (!isObject(a)) throw new PushInputError(at, `Invalid params: ${at} must be an object`);
  const schemes = a.schemes;
  if (!Array.isArray(schemes) || !schemes.every((s) => typeof s === 'string'))
    throw new PushInputError(`${at}.schemes`, `Invalid params: ${at}.schemes must be an array of strings`);
  if (a.credentials !== undefined && (typeof a.credentials !== 'string' || a.credentials.length > MAX_TOKEN))
    throw new PushInputError(`${at}.credentials`, `Invalid params: ${at}.credentials must be a string of at most ${MAX_TOKEN} characters`);
  if (schemes.length > 0 && !schemes.some((s) => SCHEMES.has(s.toLowerCase())))
    throw new PushInputError(`${at}.schemes`, `Invalid params: ${at}.schemes names no scheme the runtime can send (Bearer, Basic)`);
  if (schemes.length > 0 && typeof a.credentials !== 'string')
    throw new PushInputError(`${at}.credentials`, `Invalid params: ${at}.credentials is required with a scheme`);
  return { schemes: schemes as string[], ...(typeof a.credentials === 'string' ? { credentials: a.credentials } : {}) };
}

/** The Authorization header value of a configuration's authentication, or null. */
export function authorizationOf(auth: PushAuth | undefined): string | null {
  if (!auth?.credentials) return null;
  const scheme = auth.schemes.map((s) => SCHEMES.get(s.toLowerCase())).find(Boolean);
  return scheme ? `${scheme} ${auth.credentials}` : null;
}
