// NATS connection settings (docs/deployment.md, "The NATS connection"): one credential kind,
// checked at start with a one-line error naming the setting and never echoing a secret.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nkeys } from '@nats-io/nats-core';
import { natsDescription, natsSettings, signingSecret } from './nats-settings.ts';
import { loadSettings, SettingsError } from '../config.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nats-settings-'));
const file = (name: string, text: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, text);
  return p;
};
const SECRET = 'x'.repeat(44);

describe('NATS connection settings', () => {
  it('no credentials by default; each kind named in the description, never its secret', () => {
    expect(natsDescription(natsSettings({}))).toEqual({ servers: 'nats://127.0.0.1:4222', auth: 'none', tls: false, inbox_prefix: '_INBOX' });
    const seed = new TextDecoder().decode(nkeys.createUser().getSeed());
    const cases: [Record<string, string>, string][] = [
      [{ NATS_USER: 'rt', NATS_PASSWORD: 'hunter2-secret' }, 'user-password'],
      [{ NATS_TOKEN: 'tok-secret' }, 'token'],
      [{ NATS_NKEY_SEED: seed }, 'nkey'],
      [{ NATS_NKEY_SEED_FILE: file('seed.nk', `${seed}\n`) }, 'nkey'],
    ];
    for (const [env, auth] of cases) {
      const s = natsSettings(env);
      expect(s.auth).toBe(auth);
      expect(typeof s.authenticator).toBe('function');
      const shown = JSON.stringify([s, natsDescription(s)]);
      for (const v of Object.values(env)) expect(shown).not.toContain(v.trim());
    }
  });

  it('tls:// servers or any NATS_TLS_* file require TLS; the files are checked at start', () => {
    expect(natsSettings({ NATS_URL: 'tls://nats.example.com:4222' }).tls).toEqual({});
    const ca = file('ca.pem', 'pem');
    expect(natsSettings({ NATS_URL: 'nats://a:4222,b:4223', NATS_TLS_CA_FILE: ca })).toMatchObject({
      servers: ['nats://a:4222', 'nats://b:4223'],
      tls: { caFile: ca },
    });
    expect(() => natsSettings({ NATS_TLS_CA_FILE: path.join(dir, 'missing.pem') })).toThrow(
      new SettingsError(`NATS_TLS_CA_FILE: cannot read ${path.join(dir, 'missing.pem')} (ENOENT)`),
    );
    expect(() => natsSettings({ NATS_TLS_CERT_FILE: ca })).toThrow(new SettingsError('NATS_TLS_CERT_FILE needs NATS_TLS_KEY_FILE too'));
    expect(() => natsSettings({ NATS_URL: 'nats://a:4222,tls://b:4222' })).toThrow(/mixes nats:\/\/ and tls:\/\//);
  });

  it('refuses conflicting, incomplete or unreadable credentials in one line naming the setting, without the secret', () => {
    const refusals: [Record<string, string>, string][] = [
      [
        { NATS_USER: 'rt', NATS_PASSWORD: 'pw-secret', NATS_TOKEN: 'tok-secret' },
        'NATS credentials: set one kind only, got NATS_USER/NATS_PASSWORD and NATS_TOKEN',
      ],
      [{ NATS_PASSWORD: 'pw-secret' }, 'NATS_PASSWORD is set without NATS_USER'],
      [{ NATS_USER: 'rt' }, 'NATS_USER is set without NATS_PASSWORD'],
      [{ NATS_NKEY_SEED: 'SUnot-a-seed-secret' }, 'NATS_NKEY_SEED must be a NATS user NKey seed (SU..., as nk -gen user writes it)'],
      [{ NATS_NKEY_SEED: 'SUA', NATS_NKEY_SEED_FILE: file('s2', 'SUA') }, 'NATS_NKEY_SEED and NATS_NKEY_SEED_FILE are both set: keep one'],
      [
        { NATS_CREDS_FILE: file('bad.creds', 'secret-but-not-creds') },
        `NATS_CREDS_FILE: ${path.join(dir, 'bad.creds')} is not a NATS credentials file (a user JWT and NKey seed, as nsc generate creds writes it)`,
      ],
      [{ NATS_CREDS_FILE: path.join(dir, 'none.creds') }, `NATS_CREDS_FILE: cannot read ${path.join(dir, 'none.creds')} (ENOENT)`],
      [
        { NATS_URL: 'nats://rt:pw-secret@nats:4222' },
        'NATS_URL must not carry credentials: set NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE',
      ],
      [{ NATS_URL: 'http://nats:4222' }, "NATS_URL servers must be nats:// or tls://, got 'http://'"],
      [{ NATS_INBOX_PREFIX: '_INBOX.>' }, "NATS_INBOX_PREFIX must be dot-separated tokens of letters, digits, _ and -, got '_INBOX.>'"],
    ];
    for (const [env, message] of refusals) {
      expect(() => natsSettings(env), JSON.stringify(env)).toThrow(new SettingsError(message));
      expect(message).not.toContain('secret');
    }
  });

  it('CLUSTER_CONTROL=nats needs CLUSTER_CONTROL_SECRET (32 characters or more); REGISTRY_EVENTS_SECRET is optional', () => {
    expect(() => loadSettings(dir, { CLUSTER_CONTROL: 'nats' })).toThrow(
      new SettingsError('CLUSTER_CONTROL=nats needs CLUSTER_CONTROL_SECRET (the same on every replica; make one with: openssl rand -base64 32)'),
    );
    expect(() => loadSettings(dir, { CLUSTER_CONTROL: 'nats', CLUSTER_CONTROL_SECRET: 'short' })).toThrow(
      /CLUSTER_CONTROL_SECRET must be at least 32 characters/,
    );
    const s = loadSettings(dir, {
      CLUSTER_CONTROL: 'nats',
      CLUSTER_CONTROL_SECRET_FILE: file('cc.secret', `${SECRET}\n`),
      REGISTRY_EVENTS: 'nats',
      NATS_TOKEN: 't',
    });
    expect(s.clusterControl?.secret.toString()).toBe(SECRET);
    expect(s.registryEvents?.secret).toBeNull();
    expect(s.nats?.auth).toBe('token');
    expect(signingSecret({ REGISTRY_EVENTS_SECRET: SECRET }, 'REGISTRY_EVENTS_SECRET', null)?.toString()).toBe(SECRET);
    // No NATS feature on: the NATS settings are not read at all.
    expect(loadSettings(dir, { NATS_TOKEN: 'a', NATS_USER: 'b' }).nats).toBeNull();
  });
});
