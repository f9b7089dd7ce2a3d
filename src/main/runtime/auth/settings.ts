// The authentication settings (docs/security.md, "Deployed runtime: authentication"; D-46):
// who may call POST / (A2A_API_KEYS, A2A_API_KEYS_FILE, A2A_JWT_*), which of them are trusted
// (A2A_TRUSTED_PRINCIPALS), and the operators of the management API (MANAGEMENT_API_KEYS,
// MANAGEMENT_API_KEYS_FILE, plus RUNTIME_CONTROL_TOKEN). A wrong value stops the start with one
// line naming the setting.
import fs from 'node:fs';
import path from 'node:path';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { isLoopbackAddress } from '../../http/loopback.ts';
import { SettingsError } from '../settings-error.ts';
import { KeyRing, parseKeyEntry, type ApiKeyEntry } from './api-keys.ts';

/** Where JWT signatures are checked: a remote JWKS, one public key, or a local JWK set. */
export type JwtKeySource = { kind: 'jwks-url'; url: URL } | { kind: 'key'; key: KeyObject } | { kind: 'jwk-set'; jwks: { keys: Record<string, unknown>[] } };

export interface JwtSettings {
  keys: JwtKeySource;
  issuer: string;
  audience: string;
  /** Allowed `alg` values: asymmetric only, never `none`. */
  algorithms: string[];
  clockSkewSeconds: number;
}

export interface AuthSettings {
  /** A2A_API_KEYS and A2A_API_KEYS_FILE: the callers' keys. */
  callerKeys: KeyRing;
  /** A2A_JWT_*: bearer JWTs from an identity provider; null when not configured. */
  jwt: JwtSettings | null;
  /** A2A_TRUSTED_PRINCIPALS: names (key names, JWT subjects) that may act for other users. */
  trusted: ReadonlySet<string>;
  /** MANAGEMENT_API_KEYS and MANAGEMENT_API_KEYS_FILE: the operators' keys. */
  operatorKeys: KeyRing;
  /** RUNTIME_INSECURE=true: start on a non-loopback address without credentials (like --insecure). */
  insecure: boolean;
}

export const DEFAULT_JWT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];
/** The JWS algorithms verified with a public key (RFC 7518, RFC 8037). */
const ASYMMETRIC = new Set(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519']);

/** Caller authentication is on: POST / needs a credential. */
export const callerAuthConfigured = (a: AuthSettings): boolean => a.callerKeys.size > 0 || a.jwt !== null;

export function authSettings(env: Record<string, string>, projectDir: string): AuthSettings {
  const callerKeys = keyList(env, 'A2A_API_KEYS', projectDir);
  const operatorKeys = keyList(env, 'MANAGEMENT_API_KEYS', projectDir);
  const callerHashes = new Set(callerKeys.map((e) => e.hash.toString('hex')));
  const shared = operatorKeys.find((e) => callerHashes.has(e.hash.toString('hex')));
  if (shared)
    throw new SettingsError(`MANAGEMENT_API_KEYS entry '${shared.name}' has the hash of a key in A2A_API_KEYS: an operator key must not also be a caller key`);
  return {
    callerKeys: new KeyRing(callerKeys),
    jwt: jwtSettings(env, projectDir),
    trusted: new Set(list(env.A2A_TRUSTED_PRINCIPALS)),
    operatorKeys: new KeyRing(operatorKeys),
    insecure: /^(1|true|yes|on)$/i.test(env.RUNTIME_INSECURE ?? ''),
  };
}

const list = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** NAME (comma-separated entries) and NAME_FILE (one entry per line, `#` comments), merged.
 * A name may repeat (one principal's old and new key during a rotation); a hash may not. */
function keyList(env: Record<string, string>, name: string, projectDir: string): ApiKeyEntry[] {
  const entries = list(env[name]).map((e) => [name, e] as const);
  const file = env[`${name}_FILE`]?.trim();
  if (file) {
    const lines = readSettingFile(`${name}_FILE`, path.resolve(projectDir, file))
      .split(/\r?\n/)
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean);
    entries.push(...lines.map((e) => [`${name}_FILE`, e] as const));
  }
  const seen = new Map<string, string>();
  return entries.map(([setting, raw]) => {
    const e = parseKeyEntry(raw);
    if (typeof e === 'string') throw new SettingsError(`${setting}: ${e}`);
    const hex = e.hash.toString('hex');
    if (seen.has(hex)) throw new SettingsError(`${setting}: '${e.name}' has the same key hash as '${seen.get(hex)}': each key must be different`);
    seen.set(hex, e.name);
    return e;
  });
}

function readSettingFile(setting: string, file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new SettingsError(`${setting}: cannot read '${file}' (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

function jwtSettings(env: Record<string, string>, projectDir: string): JwtSettings | null {
  const url = env.A2A_JWT_JWKS_URL?.trim();
  const key = env.A2A_JWT_PUBLIC_KEY?.trim();
  const others = ['A2A_JWT_ISSUER', 'A2A_JWT_AUDIENCE', 'A2A_JWT_ALGORITHMS', 'A2A_JWT_CLOCK_SKEW_SECONDS'].filter((n) => env[n]?.trim());
  if (!url && !key) {
    if (others.length) throw new SettingsError(`${others[0]} is set but neither A2A_JWT_JWKS_URL nor A2A_JWT_PUBLIC_KEY says where the signing keys are`);
    return null;
  }
  if (url && key) throw new SettingsError('A2A_JWT_JWKS_URL and A2A_JWT_PUBLIC_KEY are both set: configure one source of signing keys');
  const issuer = env.A2A_JWT_ISSUER?.trim();
  const audience = env.A2A_JWT_AUDIENCE?.trim();
  if (!issuer) throw new SettingsError('A2A_JWT_ISSUER is required with JWT authentication (the `iss` the identity provider puts in its tokens)');
  if (!audience) throw new SettingsError('A2A_JWT_AUDIENCE is required with JWT authentication (the `aud` of tokens meant for this agent)');
  return {
    keys: url ? jwksUrl(url) : publicKey(key!, projectDir),
    issuer,
    audience,
    algorithms: algorithms(env.A2A_JWT_ALGORITHMS),
    clockSkewSeconds: clockSkew(env.A2A_JWT_CLOCK_SKEW_SECONDS),
  };
}

function jwksUrl(raw: string): JwtKeySource {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError(`A2A_JWT_JWKS_URL must be an absolute https URL, got '${raw}'`);
  }
  // Plain http only to this machine (a local identity provider, tests): keys fetched over the
  // network must come over TLS, or anyone on the path could sign tokens.
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackAddress(url.hostname)))
    throw new SettingsError(`A2A_JWT_JWKS_URL must be an https URL (http only on loopback), got '${raw}'`);
  return { kind: 'jwks-url', url };
}

/** PEM text, JWK or JWK-set JSON, or the path of a file holding one of them. */
function publicKey(raw: string, projectDir: string): JwtKeySource {
  const inline = raw.startsWith('-----BEGIN') || raw.startsWith('{');
  const text = inline ? raw.replace(/\\n/g, '\n') : readSettingFile('A2A_JWT_PUBLIC_KEY', path.resolve(projectDir, raw)).trim();
  try {
    if (text.startsWith('{')) {
      const json = JSON.parse(text) as Record<string, unknown>;
      if (Array.isArray(json.keys)) return { kind: 'jwk-set', jwks: json as { keys: Record<string, unknown>[] } };
      return { kind: 'key', key: publicOnly(createPublicKey({ key: json as never, format: 'jwk' })) };
    }
    return { kind: 'key', key: publicOnly(createPublicKey(text)) };
  } catch (err) {
    if (err instanceof SettingsError) throw err;
    throw new SettingsError(`A2A_JWT_PUBLIC_KEY must be a public key (PEM, JWK or JWK set, or a file holding one): ${(err as Error).message}`);
  }
}

function publicOnly(key: KeyObject): KeyObject {
  if (key.asymmetricKeyType === undefined) throw new SettingsError('A2A_JWT_PUBLIC_KEY must be an asymmetric public key (RSA, EC or Ed25519)');
  return key;
}

function algorithms(raw: string | undefined): string[] {
  const algs = list(raw);
  if (!algs.length) return DEFAULT_JWT_ALGORITHMS;
  for (const alg of algs) {
    if (alg.toLowerCase() === 'none') throw new SettingsError('A2A_JWT_ALGORITHMS must not list none: unsigned tokens prove nothing');
    if (/^HS/i.test(alg))
      throw new SettingsError(`A2A_JWT_ALGORITHMS lists ${alg}: tokens are verified with public keys only (RS*, PS*, ES*, EdDSA), not a shared secret`);
    if (!ASYMMETRIC.has(alg)) throw new SettingsError(`A2A_JWT_ALGORITHMS lists unknown algorithm '${alg}': use ${[...ASYMMETRIC].join(', ')}`);
  }
  return algs;
}

function clockSkew(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 30;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 600) throw new SettingsError(`A2A_JWT_CLOCK_SKEW_SECONDS must be an integer from 0 to 600, got '${raw}'`);
  return n;
}
