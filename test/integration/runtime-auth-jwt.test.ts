// Bearer JWTs on POST / over real HTTP (docs/security.md, "Deployed runtime: authentication"):
// the runtime fetches its signing keys from a JWKS server on loopback, as from an identity
// provider, and takes a token's `sub` as the principal.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { A2AClient } from '@a2a-js/sdk/client';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { sendParams, startTestRuntime, tempDir, type TestRuntime } from './helpers/runtime.ts';

const ISSUER = 'https://idp.test.example';
const AUDIENCE = 'support-desk';
const caller = newKey('service-a');

let signing: { privateKey: CryptoKey; publicKey: CryptoKey };
let stranger: { privateKey: CryptoKey; publicKey: CryptoKey };
let jwks: http.Server;
let jwksUrl: string;

const now = () => Math.floor(Date.now() / 1000);

function token(claims: Record<string, unknown> = {}, opts: { key?: CryptoKey; alg?: string; kid?: string; omit?: string[] } = {}): Promise<string> {
  const payload: Record<string, unknown> = { sub: 'alice@example.com', iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 300, ...claims };
  for (const k of opts.omit ?? []) delete payload[k];
  return new SignJWT(payload).setProtectedHeader({ alg: opts.alg ?? 'RS256', kid: opts.kid ?? 'k1' }).sign(opts.key ?? signing.privateKey);
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function rpc(url: string, headers: Record<string, string>): Promise<{ status: number; body: any; challenge: string | null }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: sendParams('How do I reset my password?') }),
  });
  return { status: res.status, body: await res.json(), challenge: res.headers.get('www-authenticate') };
}

beforeAll(async () => {
  signing = await generateKeyPair('RS256');
  stranger = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(signing.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
});
afterAll(() => new Promise<void>((r) => jwks?.close(() => r())));

describe('runtime with JWTs from a JWKS (and API keys beside them)', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({
      env: { A2A_JWT_JWKS_URL: jwksUrl, A2A_JWT_ISSUER: ISSUER, A2A_JWT_AUDIENCE: AUDIENCE, A2A_JWT_CLOCK_SKEW_SECONDS: '30', A2A_API_KEYS: caller.entry },
    });
  });
  afterAll(async () => rt?.close());

  it('serves a valid token through the official client', async () => {
    const jwt = await token();
    const fetchImpl: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${jwt}` } });
    const client = new A2AClient({ ...((await (await fetch(`${rt.url}.well-known/agent-card.json`)).json()) as any), url: rt.url }, { fetchImpl });
    const res: any = await client.sendMessage(sendParams('How do I reset my password?'));
    expect(res.result.status.state).toBe('completed');
  });

  it('accepts a token expired within the clock skew, refuses one expired beyond it', async () => {
    expect((await rpc(rt.url, { authorization: `Bearer ${await token({ exp: now() - 10, iat: now() - 100 })}` })).status).toBe(200);
    const late = await rpc(rt.url, { authorization: `Bearer ${await token({ exp: now() - 120, iat: now() - 400 })}` });
    expect(late.status).toBe(401);
    expect(late.body.error.code).toBe(-32010);
  });

  it('refuses a wrong issuer, a wrong audience, no sub, no exp, another signer, HS256, alg none and a malformed token, all alike', async () => {
    const refused = [
      await token({ iss: 'https://other.example' }),
      await token({ aud: 'another-agent' }),
      await token({}, { omit: ['sub'] }),
      await token({}, { omit: ['exp'] }),
      await token({}, { key: stranger.privateKey }),
      await token({}, { key: stranger.privateKey, kid: 'k2' }),
      // HS256 with the public key's bytes as the secret: the classic algorithm confusion.
      await new SignJWT({ sub: 'mallory', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })
        .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
        .sign(new TextEncoder().encode(JSON.stringify(await exportJWK(signing.publicKey)))),
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'mallory', iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.`,
      `${b64({ alg: 'RS256' })}.not-json.c2ln`,
      'a.b.c',
    ];
    const first = await rpc(rt.url, { authorization: `Bearer ${refused[0]}` });
    for (const jwt of refused) {
      const r = await rpc(rt.url, { authorization: `Bearer ${jwt}` });
      expect(r.status, jwt).toBe(401);
      expect(r.challenge).toMatch(/^Bearer realm="a2a"/);
      expect(r.body).toEqual(first.body);
    }
  });

  it('still serves the API key; the card offers both schemes as alternatives', async () => {
    expect((await rpc(rt.url, { 'x-api-key': caller.key })).status).toBe(200);
    const card: any = await (await fetch(`${rt.url}.well-known/agent-card.json`)).json();
    expect(card.securitySchemes).toEqual({
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      bearerJwt: expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
    });
    expect(card.security).toEqual([{ apiKey: [] }, { bearerJwt: [] }]);
  });
});

describe('runtime with one public key file (A2A_JWT_PUBLIC_KEY) and an algorithm allowlist', () => {
  let rt: TestRuntime;
  let es: { privateKey: CryptoKey; publicKey: CryptoKey };
  beforeAll(async () => {
    es = await generateKeyPair('ES256');
    const file = path.join(tempDir('jwt-key'), 'idp.pem');
    fs.writeFileSync(file, await exportSPKI(es.publicKey));
    rt = await startTestRuntime({ env: { A2A_JWT_PUBLIC_KEY: file, A2A_JWT_ISSUER: ISSUER, A2A_JWT_AUDIENCE: AUDIENCE, A2A_JWT_ALGORITHMS: 'ES256' } });
  });
  afterAll(async () => rt?.close());

  it('accepts the allowed algorithm signed by the key, refuses another algorithm', async () => {
    expect((await rpc(rt.url, { authorization: `Bearer ${await token({}, { key: es.privateKey, alg: 'ES256' })}` })).status).toBe(200);
    expect((await rpc(rt.url, { authorization: `Bearer ${await token()}` })).status).toBe(401);
  });
});
