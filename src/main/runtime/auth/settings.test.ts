import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SettingsError } from '../settings-error.ts';
import { newKey, sha256 } from './api-keys.ts';
import { authSettings } from './settings.ts';

const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'auth-'));
const jwt = { A2A_JWT_JWKS_URL: 'https://idp.example.com/jwks.json', A2A_JWT_ISSUER: 'https://idp.example.com', A2A_JWT_AUDIENCE: 'agent' };

describe('authentication settings', () => {
  it('reads keys from the list and the file (comments, blank lines), one principal for several keys', () => {
    const [a, a2, b] = [newKey('alice'), newKey('alice'), newKey('bob')];
    const d = dir();
    fs.writeFileSync(path.join(d, 'keys.txt'), `# callers\n${b.entry}  # bob's key\n\n`);
    const s = authSettings({ A2A_API_KEYS: ` ${a.entry} , ${a2.entry}`, A2A_API_KEYS_FILE: 'keys.txt', A2A_TRUSTED_PRINCIPALS: 'gateway, bob' }, d);
    expect(s.callerKeys.size).toBe(3);
    expect([a.key, a2.key, b.key, 'x'].map((k) => s.callerKeys.nameOf(k))).toEqual(['alice', 'alice', 'bob', null]);
    expect([...s.trusted]).toEqual(['gateway', 'bob']);
    expect(s.jwt).toBeNull();
    expect(s.operatorKeys.size).toBe(0);
  });

  it('names the setting that is wrong, in one line', () => {
    const k = newKey('alice');
    const cases: [Record<string, string>, RegExp][] = [
      [{ A2A_API_KEYS: 'alice' }, /^A2A_API_KEYS: 'alice' is not name:sha256hex$/],
      [{ A2A_API_KEYS: 'alice:abc' }, /^A2A_API_KEYS: the hash of 'alice' must be 64 hex digits/],
      [{ A2A_API_KEYS: `a b:${'0'.repeat(64)}` }, /^A2A_API_KEYS: the name 'a b'/],
      [{ A2A_API_KEYS: `${k.entry},bob:${sha256(k.key).toString('hex')}` }, /^A2A_API_KEYS: 'bob' has the same key hash as 'alice'/],
      [{ A2A_API_KEYS_FILE: 'missing.txt' }, /^A2A_API_KEYS_FILE: cannot read '.*missing\.txt' \(ENOENT\)$/],
      [
        { A2A_API_KEYS: k.entry, MANAGEMENT_API_KEYS: `ops:${sha256(k.key).toString('hex')}` },
        /^MANAGEMENT_API_KEYS entry 'ops' has the hash of a key in A2A_API_KEYS/,
      ],
      [{ A2A_JWT_ISSUER: 'x' }, /^A2A_JWT_ISSUER is set but neither A2A_JWT_JWKS_URL nor A2A_JWT_PUBLIC_KEY/],
      [{ ...jwt, A2A_JWT_AUDIENCE: '' }, /^A2A_JWT_AUDIENCE is required/],
      [{ ...jwt, A2A_JWT_JWKS_URL: 'http://idp.example.com/jwks' }, /^A2A_JWT_JWKS_URL must be an https URL/],
      [{ ...jwt, A2A_JWT_ALGORITHMS: 'RS256,none' }, /^A2A_JWT_ALGORITHMS must not list none/],
      [{ ...jwt, A2A_JWT_ALGORITHMS: 'HS256' }, /^A2A_JWT_ALGORITHMS lists HS256: tokens are verified with public keys only/],
      [{ ...jwt, A2A_JWT_ALGORITHMS: 'RS257' }, /^A2A_JWT_ALGORITHMS lists unknown algorithm 'RS257'/],
      [{ ...jwt, A2A_JWT_CLOCK_SKEW_SECONDS: '-1' }, /^A2A_JWT_CLOCK_SKEW_SECONDS must be an integer from 0 to 600/],
      [{ ...jwt, A2A_JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nxx\n-----END PUBLIC KEY-----' }, /^A2A_JWT_JWKS_URL and A2A_JWT_PUBLIC_KEY are both set/],
      [
        { ...jwt, A2A_JWT_JWKS_URL: '', A2A_JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nxx\n-----END PUBLIC KEY-----' },
        /^A2A_JWT_PUBLIC_KEY must be a public key/,
      ],
    ];
    for (const [env, message] of cases) {
      let err: unknown;
      try {
        authSettings(env, dir());
      } catch (e) {
        err = e;
      }
      expect(err, JSON.stringify(env)).toBeInstanceOf(SettingsError);
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('JWT: defaults (RS256, ES256, EdDSA; 30 s), http JWKS on loopback, a PEM inline or in a file', () => {
    const s = authSettings({ ...jwt, A2A_JWT_JWKS_URL: 'http://127.0.0.1:9999/jwks' }, dir());
    expect(s.jwt).toMatchObject({ issuer: jwt.A2A_JWT_ISSUER, audience: 'agent', algorithms: ['RS256', 'ES256', 'EdDSA'], clockSkewSeconds: 30 });
    const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const d = dir();
    fs.writeFileSync(path.join(d, 'idp.pem'), pem);
    for (const value of [pem, 'idp.pem', pem.replace(/\n/g, '\\n')]) {
      const k = authSettings({ ...jwt, A2A_JWT_JWKS_URL: '', A2A_JWT_PUBLIC_KEY: value }, d).jwt!.keys;
      expect(k.kind === 'key' && k.key.asymmetricKeyType).toBe('ed25519');
    }
  });
});
