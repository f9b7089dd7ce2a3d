// A seeded fuzz campaign over the authentication headers of a runtime with caller keys, JWTs
// (from a JWKS server on loopback) and operator keys configured (docs/security.md, "Deployed
// runtime: authentication"): malformed and huge Authorization and X-API-Key values, JWTs with
// the wrong algorithm, `alg: none`, expired, re-signed or bit-flipped. Whatever arrives, the
// answer is JSON in the surface's shape and never 5xx; only a valid credential is served, and
// every refusal on a surface is the same.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { sendParams, startTestRuntime, type TestRuntime } from '../integration/helpers/runtime.ts';
import { checkAnswer, send, type FuzzRequest } from './support.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);
const ISSUER = 'https://idp.fuzz.example';
const AUDIENCE = 'fuzz-agent';
const caller = newKey('alice');
const operator = newKey('ops');

/** A credential header set and what it should get: `caller` (served by POST /, 403 on
 * management), `operator` (200 on management, 401 on POST /) or `none` (401 on both), or
 * `oversized` (Node's parser answers 431 before any route). */
interface Credential {
  headers: Record<string, string | string[]>;
  is: 'caller' | 'operator' | 'none' | 'oversized';
}

/** A credential that prints short in a failure report (some carry 64 KiB). */
function cred(headers: Credential['headers'], is: Credential['is']): Credential {
  return Object.assign({ headers, is }, { [fc.toStringMethod]: () => `${is} ${JSON.stringify(headers).slice(0, 200)}` });
}

let rt: TestRuntime;
let port: number;
let jwks: http.Server;
const tokens: Record<string, string> = {};
const now = () => Math.floor(Date.now() / 1000);
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function signed(key: CryptoKey | Uint8Array, alg: string, claims: Record<string, unknown> = {}): Promise<string> {
  return new SignJWT({ sub: 'bob', iss: ISSUER, aud: AUDIENCE, iat: now(), exp: now() + 3600, ...claims }).setProtectedHeader({ alg, kid: 'k1' }).sign(key);
}

beforeAll(async () => {
  const idp = await generateKeyPair('ES256');
  const other = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(idp.publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  jwks = http.createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((r) => jwks.listen(0, '127.0.0.1', r));
  tokens.valid = await signed(idp.privateKey, 'ES256');
  tokens.expired = await signed(idp.privateKey, 'ES256', { exp: now() - 3600, iat: now() - 7200 });
  tokens.notYet = await signed(idp.privateKey, 'ES256', { nbf: now() + 3600 });
  tokens.wrongAudience = await signed(idp.privateKey, 'ES256', { aud: 'other' });
  tokens.otherSigner = await signed(other.privateKey, 'RS256');
  tokens.hs256 = await signed(new TextEncoder().encode(JSON.stringify(jwk)), 'HS256');
  tokens.none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: 'bob', iss: ISSUER, aud: AUDIENCE, exp: now() + 3600 })}.`;
  // Signed by the right key, but with a critical header extension nobody understands (RFC 7515 4.1.11).
  const critInput = `${b64({ alg: 'ES256', kid: 'k1', crit: ['x-fuzz'], 'x-fuzz': 1 })}.${b64({ sub: 'bob', iss: ISSUER, aud: AUDIENCE, exp: now() + 3600 })}`;
  const critSig = await crypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, idp.privateKey, new TextEncoder().encode(critInput));
  tokens.crit = `${critInput}.${Buffer.from(critSig).toString('base64url')}`;
  tokens.jku = `${b64({ alg: 'ES256', jku: 'http://evil.example/jwks', kid: 'k1' })}.${tokens.valid.split('.')[1]}.${tokens.valid.split('.')[2]}`;
  tokens.numericAlg = `${b64({ alg: 5 })}.${b64({ sub: 'bob' })}.c2ln`;
  rt = await startTestRuntime({
    env: {
      A2A_API_KEYS: caller.entry,
      MANAGEMENT_API_KEYS: operator.entry,
      A2A_JWT_JWKS_URL: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`,
      A2A_JWT_ISSUER: ISSUER,
      A2A_JWT_AUDIENCE: AUDIENCE,
      A2A_JWT_ALGORITHMS: 'ES256',
    },
  });
  port = Number(new URL(rt.url).port);
});
afterAll(async () => {
  await rt?.close();
  await new Promise<void>((r) => jwks?.close(() => r()));
});

/** A token with one character of its header or payload changed (never a segment's last
 * character, whose spare bits may decode to the same bytes). */
const flipped = (name: string) =>
  fc.tuple(fc.nat(), fc.constantFrom('A', 'b', '_', '-', '0')).map(([at, ch]) => {
    const t = tokens[name]!;
    const end = t.lastIndexOf('.') - 1;
    let i = at % end;
    if (t[i] === '.' || t[i + 1] === '.') i = 0;
    return t[i] === ch ? null : t.slice(0, i) + ch + t.slice(i + 1);
  });

const printable = fc.string({ minLength: 0, maxLength: 200 });

const credential: fc.Arbitrary<Credential> = fc.oneof(
  fc.constant(cred({}, 'none')),
  fc.constant(cred({ authorization: `Bearer ${caller.key}` }, 'caller')),
  fc.constant(cred({ 'x-api-key': caller.key }, 'caller')),
  fc.constant(cred({ authorization: `Bearer ${operator.key}` }, 'operator')),
  fc.constantFrom(...['valid']).map((n) => cred({ authorization: `Bearer ${tokens[n]}` }, 'caller')),
  fc
    .constantFrom('expired', 'notYet', 'wrongAudience', 'otherSigner', 'hs256', 'none', 'crit', 'jku', 'numericAlg')
    .map((n) => cred({ authorization: `Bearer ${tokens[n]}` }, 'none')),
  flipped('valid').map((t) => (t === null ? cred({}, 'none') : cred({ authorization: `Bearer ${t}` }, 'none'))),
  printable.map((s) => cred({ authorization: s }, 'none')),
  printable.map((s) => cred({ authorization: `Bearer ${s}` }, 'none')),
  printable.map((s) => cred({ 'x-api-key': s }, 'none')),
  fc
    .constantFrom(
      'Basic YWxpY2U6eA==',
      'Bearer',
      'Bearer ',
      'bearer  a.b.c',
      'Bearer a.b',
      'Bearer ....',
      `Bearer ${caller.key} extra`,
      `Bearer  ${caller.key}x`,
    )
    .map((v) => cred({ authorization: v }, 'none')),
  fc.constant(cred({ authorization: `Bearer ${caller.key}`, 'x-api-key': caller.key }, 'none')),
  fc.constant(cred({ 'x-api-key': [caller.key, caller.key] }, 'none')),
  fc.constantFrom(2_000, 7_000).map((n) => cred({ authorization: `Bearer ${'a'.repeat(n)}.${'b'.repeat(n)}.c` }, 'none')),
  fc.constantFrom(64 * 1024, 20_000).map((n) => cred({ authorization: `Bearer ${'k'.repeat(n)}` }, 'oversized')),
  fc.constant(cred({ 'x-api-key': 'k'.repeat(64 * 1024) }, 'oversized')),
);

const surface = fc.constantFrom('rpc', 'status', 'threads');

function requestFor(s: string, c: Credential): FuzzRequest {
  const headers = { host: `127.0.0.1:${port}`, ...c.headers };
  if (s !== 'rpc') return { method: 'GET', path: s === 'status' ? '/api/v1/status' : '/api/v1/memory/threads', headers };
  const body = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: sendParams('How do I reset my password?') }));
  return { method: 'POST', path: '/', headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) }, body };
}

describe('fuzzing the authentication headers', () => {
  it(`answers ${RUNS} hostile credentials in the surface's shape, serving only valid ones (seed ${SEED})`, async () => {
    const refusals = new Map<string, string>();
    const tally: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(surface, credential, async (s, c) => {
        const req = requestFor(s, c);
        const res = await send(port, req);
        const body = checkAnswer(req, res) as any;
        tally[`${s} ${res.status}`] = (tally[`${s} ${res.status}`] ?? 0) + 1;
        if (c.is === 'oversized') return void expect(res.status).toBe(431);
        const expected = s === 'rpc' ? (c.is === 'caller' ? 200 : 401) : c.is === 'operator' ? 200 : c.is === 'caller' ? 403 : 401;
        expect(res.status, JSON.stringify(c.headers).slice(0, 300)).toBe(expected);
        if (expected === 200) return;
        if (s === 'rpc') expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32010 } });
        else expect(body).toMatchObject({ success: false, data: null, error: { code: expected === 403 ? 'OPERATOR_CREDENTIAL_REQUIRED' : 'UNAUTHORIZED' } });
        // Every refusal of a surface reads the same: none hints at what was wrong.
        const key = `${s} ${res.status}`;
        const text = JSON.stringify(body);
        if (!refusals.has(key)) refusals.set(key, text);
        expect(text).toBe(refusals.get(key));
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(`[auth fuzz] answers by surface and status: ${JSON.stringify(tally)}`);
    // The runtime still serves its callers.
    expect((await send(port, requestFor('rpc', { headers: { 'x-api-key': caller.key }, is: 'caller' }))).status).toBe(200);
  });
});
