// How the runtime reaches NATS, for every feature on it (trace sink, cluster control, registry
// events; docs/deployment.md "The NATS connection", docs/security.md "The message broker"):
// NATS_URL, one kind of credentials, TLS, the inbox prefix; and the shared secrets that sign
// cluster control (CLUSTER_CONTROL_SECRET) and, optionally, registry change events
// (REGISTRY_EVENTS_SECRET). Credentials go through the nats.js client's own authenticators;
// the settings keep them only inside those closures, so logging the settings shows no secret.
import fs from 'node:fs';
import {
  credsAuthenticator,
  nkeyAuthenticator,
  nkeys,
  tokenAuthenticator,
  usernamePasswordAuthenticator,
  type Authenticator,
  type TlsOptions,
} from '@nats-io/nats-core';
import { SettingsError } from '../settings-error.ts';

/** The credential kinds, as GET /api/v1/status names them (never the credential itself). */
export type NatsAuthMethod = 'none' | 'user-password' | 'token' | 'nkey' | 'creds';

export interface NatsSettings {
  /** NATS_URL split on commas, each `nats://` or `tls://` host:port, no credentials. */
  servers: string[];
  auth: NatsAuthMethod;
  /** The client's authenticator for `auth` (absent for `none`). */
  authenticator?: Authenticator;
  /** TLS required (a `tls://` URL or any NATS_TLS_* setting), with the files to use; null: as the server offers. */
  tls: TlsOptions | null;
  /** Reply subjects (requests, JetStream acks, followed tasks) start with this (NATS_INBOX_PREFIX, default `_INBOX`). */
  inboxPrefix: string;
}

const env1 = (env: Record<string, string>, name: string) => env[name]?.trim() || undefined;

function readable(name: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new SettingsError(`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
}

/** NATS_URL: comma-separated `nats://host:port` or `tls://host:port` (the scheme may be left out). */
function servers(env: Record<string, string>): string[] {
  const raw = env1(env, 'NATS_URL') ?? 'nats://127.0.0.1:4222';
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      let u: URL;
      try {
        u = new URL(/^[a-z]+:\/\//i.test(entry) ? entry : `nats://${entry}`);
      } catch {
        throw new SettingsError(
          `NATS_URL must list servers such as nats://nats.internal:4222 or tls://nats.internal:4222, got '${entry.replace(/\/\/[^@/]*@/, '//***@')}'`,
        );
      }
      // nats.js ignores credentials in a URL; a secret there would also show in logs and status.
      if (u.username || u.password)
        throw new SettingsError('NATS_URL must not carry credentials: set NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE');
      if (u.protocol !== 'nats:' && u.protocol !== 'tls:') throw new SettingsError(`NATS_URL servers must be nats:// or tls://, got '${u.protocol}//'`);
      if (!u.hostname) throw new SettingsError(`NATS_URL must list servers such as nats://nats.internal:4222, got '${entry}'`);
      return `${u.protocol}//${u.host}`;
    });
}

/** A secret given inline (NAME) or in a file (NAME_FILE, e.g. a mounted Kubernetes secret); not both. */
export function secretSetting(env: Record<string, string>, name: string): { value: Buffer; from: string } | null {
  const inline = env[name];
  const file = env1(env, `${name}_FILE`);
  if (inline?.trim() && file) throw new SettingsError(`${name} and ${name}_FILE are both set: keep one`);
  if (file) return { value: Buffer.from(readable(`${name}_FILE`, file).toString('utf8').trim()), from: `${name}_FILE` };
  return inline?.trim() ? { value: Buffer.from(inline.trim()), from: name } : null;
}

function credentials(env: Record<string, string>): Pick<NatsSettings, 'auth' | 'authenticator'> {
  const user = env1(env, 'NATS_USER');
  const password = env['NATS_PASSWORD'];
  const token = env1(env, 'NATS_TOKEN');
  const seed = secretSetting(env, 'NATS_NKEY_SEED');
  const creds = env1(env, 'NATS_CREDS_FILE');
  const given = [user || password ? 'NATS_USER/NATS_PASSWORD' : null, token ? 'NATS_TOKEN' : null, seed?.from ?? null, creds ? 'NATS_CREDS_FILE' : null].filter(
    (x): x is string => x !== null,
  );
  if (given.length > 1) throw new SettingsError(`NATS credentials: set one kind only, got ${given.join(' and ')}`);
  if (user || password) {
    if (!user) throw new SettingsError('NATS_PASSWORD is set without NATS_USER');
    if (!password) throw new SettingsError('NATS_USER is set without NATS_PASSWORD');
    return { auth: 'user-password', authenticator: usernamePasswordAuthenticator(user, password) };
  }
  if (token) return { auth: 'token', authenticator: tokenAuthenticator(token) };
  if (seed) {
    try {
      if (nkeys.fromSeed(seed.value).getPublicKey()[0] !== 'U') throw new Error('not a user seed');
    } catch {
      throw new SettingsError(`${seed.from} must be a NATS user NKey seed (SU..., as nk -gen user writes it)`);
    }
    return { auth: 'nkey', authenticator: nkeyAuthenticator(seed.value) };
  }
  if (creds) {
    // Read on every (re)connection, so a rotated file is picked up; checked once here.
    const read = () => new Uint8Array(readable('NATS_CREDS_FILE', creds));
    try {
      credsAuthenticator(read)('check');
    } catch (err) {
      if (err instanceof SettingsError) throw err;
      throw new SettingsError(`NATS_CREDS_FILE: ${creds} is not a NATS credentials file (a user JWT and NKey seed, as nsc generate creds writes it)`);
    }
    return { auth: 'creds', authenticator: credsAuthenticator(read) };
  }
  return { auth: 'none' };
}

/** NATS_TLS_CA_FILE (a CA bundle to trust), NATS_TLS_CERT_FILE + NATS_TLS_KEY_FILE (a client certificate). */
function tls(env: Record<string, string>, urls: string[]): TlsOptions | null {
  const caFile = env1(env, 'NATS_TLS_CA_FILE');
  const certFile = env1(env, 'NATS_TLS_CERT_FILE');
  const keyFile = env1(env, 'NATS_TLS_KEY_FILE');
  if (Boolean(certFile) !== Boolean(keyFile))
    throw new SettingsError(`${certFile ? 'NATS_TLS_CERT_FILE' : 'NATS_TLS_KEY_FILE'} needs ${certFile ? 'NATS_TLS_KEY_FILE' : 'NATS_TLS_CERT_FILE'} too`);
  const tlsUrl = urls.some((u) => u.startsWith('tls:'));
  if (!caFile && !certFile && !tlsUrl) return null;
  if (urls.some((u) => u.startsWith('nats:')) && tlsUrl)
    throw new SettingsError('NATS_URL mixes nats:// and tls:// servers: TLS is one setting for all of them');
  // The client reads the files on every (re)connection (renewed certificates are picked up);
  // they are checked once here so that a wrong path is a start error.
  const o: TlsOptions = {};
  for (const [name, file, key] of [
    ['NATS_TLS_CA_FILE', caFile, 'caFile'],
    ['NATS_TLS_CERT_FILE', certFile, 'certFile'],
    ['NATS_TLS_KEY_FILE', keyFile, 'keyFile'],
  ] as const) {
    if (!file) continue;
    readable(name, file);
    o[key] = file;
  }
  return o;
}

export function natsSettings(env: Record<string, string>): NatsSettings {
  const urls = servers(env);
  const inboxPrefix = env1(env, 'NATS_INBOX_PREFIX') ?? '_INBOX';
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(inboxPrefix))
    throw new SettingsError(`NATS_INBOX_PREFIX must be dot-separated tokens of letters, digits, _ and -, got '${inboxPrefix}'`);
  return { servers: urls, ...credentials(env), tls: tls(env, urls), inboxPrefix };
}

/** What GET /api/v1/status shows of the connection: servers, the credential kind, TLS on or not. */
export function natsDescription(s: NatsSettings) {
  return { servers: s.servers.join(','), auth: s.auth, tls: s.tls !== null, inbox_prefix: s.inboxPrefix };
}

/** Shortest signing secret accepted: 32 bytes, as `openssl rand -base64 32` makes (44 characters). */
const MIN_SECRET = 32;

/** A shared signing secret (CLUSTER_CONTROL_SECRET, REGISTRY_EVENTS_SECRET, or their _FILE);
 * `required` is the start error's reason when it must be set. */
export function signingSecret(env: Record<string, string>, name: string, required: string | null): Buffer | null {
  const s = secretSetting(env, name);
  if (!s) {
    if (required) throw new SettingsError(`${required} needs ${name} (the same on every replica; make one with: openssl rand -base64 32)`);
    return null;
  }
  if (s.value.length < MIN_SECRET) throw new SettingsError(`${s.from} must be at least ${MIN_SECRET} characters (make one with: openssl rand -base64 32)`);
  return s.value;
}
