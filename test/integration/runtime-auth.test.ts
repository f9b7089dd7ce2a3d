// Caller and operator authentication of a runtime over real HTTP (docs/security.md, "Deployed
// runtime: authentication"): API keys on POST / through the official A2A client, the public
// card and probes, and the management API's operator credentials.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { a2aClientWith, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';

const alice = newKey('alice');
const aliceNext = newKey('alice'); // rotation: the same principal's next key
const bob = newKey('bob');
const gateway = newKey('gateway');
const operator = newKey('ops');
const CONTROL_TOKEN = 'control-token-of-the-test';

const clientWith = a2aClientWith;

async function rpc(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/send', params: sendParams('How do I reset my password?') }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function expectUnauthenticated(r: { status: number; headers: Headers; body: any }): void {
  expect(r.status).toBe(401);
  expect(r.headers.get('www-authenticate')).toMatch(/Bearer realm="a2a"/);
  expect(r.headers.get('www-authenticate')).toMatch(/header="X-API-Key"/);
  expect(r.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32010, message: expect.stringMatching(/^Unauthenticated/) } });
}

describe('runtime with API keys (A2A_API_KEYS) and operator keys (MANAGEMENT_API_KEYS)', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({
      env: {
        A2A_API_KEYS: [alice.entry, aliceNext.entry, bob.entry, gateway.entry].join(','),
        A2A_TRUSTED_PRINCIPALS: 'gateway',
        MANAGEMENT_API_KEYS: operator.entry,
        RUNTIME_CONTROL_TOKEN: CONTROL_TOKEN,
        INTERNAL_RUNTIME_CONTROL_ENABLED: 'true',
        A2A_CORS_ORIGINS: 'https://app.example.com',
      },
    });
  });
  afterAll(async () => rt?.close());

  it('answers the CORS preflight without credentials, and a browser page with a key', async () => {
    const origin = 'https://app.example.com';
    const preflight = await fetch(rt.url, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-api-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-api-key');
    const refused = await rpc(rt.url, { origin });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(origin); // the page can read why
    const served = await rpc(rt.url, { origin, 'x-api-key': alice.key });
    expect(served.body.result.status.state).toBe('completed');
  });

  it('refuses POST / without a credential: 401, WWW-Authenticate and a JSON-RPC error', async () => {
    expectUnauthenticated(await rpc(rt.url));
  });

  it('answers a wrong key, a malformed header and an operator key exactly like a missing one', async () => {
    const unknown = await rpc(rt.url, { authorization: `Bearer ${newKey('mallory').key}` });
    expectUnauthenticated(unknown);
    expectUnauthenticated(await rpc(rt.url, { 'x-api-key': 'not-a-key' }));
    expectUnauthenticated(await rpc(rt.url, { authorization: `Basic ${Buffer.from('alice:x').toString('base64')}` }));
    expectUnauthenticated(await rpc(rt.url, { authorization: `Bearer ${operator.key}` }));
    expectUnauthenticated(await rpc(rt.url, { authorization: `Bearer ${alice.key}`, 'x-api-key': alice.key }));
    expect(unknown.body.error.message).toBe((await rpc(rt.url)).body.error.message);
  });

  it('serves a caller with a right key through the official client (Authorization: Bearer and X-API-Key)', async () => {
    for (const headers of [{ authorization: `Bearer ${alice.key}` }, { 'x-api-key': bob.key }] as Record<string, string>[]) {
      const res: any = await clientWith(rt.url, headers).sendMessage(sendParams('How do I reset my password?'));
      expect(res.error).toBeUndefined();
      expect((res.result as Task).status.state).toBe('completed');
    }
  });

  it('accepts both keys of a rotation, as the same principal', async () => {
    for (const k of [alice, aliceNext]) {
      const r = await rpc(rt.url, { 'x-api-key': k.key });
      expect(r.status).toBe(200);
      expect(r.body.result.status.state).toBe('completed');
    }
  });

  it('keeps the card, GET / and /healthz public; the card announces the apiKey scheme', async () => {
    const card: any = await (await fetch(`${rt.url}.well-known/agent-card.json`)).json();
    expect(card.securitySchemes).toEqual({ apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }) });
    expect(card.security).toEqual([{ apiKey: [] }]);
    expect(card.supportsAuthenticatedExtendedCard).toBe(true);
    expect((await fetch(rt.url)).status).toBe(200);
    expect((await fetch(`${rt.url}.well-known/agent.json`)).status).toBe(200);
  });

  it('answers agent/getAuthenticatedExtendedCard to an authenticated caller only', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'agent/getAuthenticatedExtendedCard' };
    const ask = (headers: Record<string, string>) =>
      fetch(rt.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    const anonymous = await ask({});
    expect(anonymous.status).toBe(401);
    const ok = await ask({ 'x-api-key': alice.key });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).result.name).toBe(((await (await fetch(`${rt.url}.well-known/agent-card.json`)).json()) as any).name);
    expect((await fetch(`${rt.url}healthz`)).status).toBe(200);
  });

  it('management: 401 without a credential, 403 OPERATOR_CREDENTIAL_REQUIRED for a caller key, 200 for an operator key or the control token', async () => {
    const none = await fetch(`${rt.url}api/v1/status`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="management"');
    expect(await none.json()).toEqual({ success: false, data: null, error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    const wrong = await fetch(`${rt.url}api/v1/memory/threads`, { headers: { authorization: `Bearer ${newKey('x').key}` } });
    expect(wrong.status).toBe(401);
    for (const headers of [{ authorization: `Bearer ${alice.key}` }, { 'x-api-key': gateway.key }] as Record<string, string>[]) {
      const caller = await fetch(`${rt.url}api/v1/memory/threads`, { headers });
      expect(caller.status).toBe(403);
      expect(((await caller.json()) as any).error.code).toBe('OPERATOR_CREDENTIAL_REQUIRED');
    }
    for (const credential of [operator.key, CONTROL_TOKEN]) {
      const ok = await fetch(`${rt.url}api/v1/status`, { headers: { authorization: `Bearer ${credential}` } });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as any).data.agent_id).toBe('test-agent');
      const meta = await fetch(`${rt.url}api/v1/registry/metadata`, { headers: { authorization: `Bearer ${credential}` } });
      expect(meta.status).toBe(200);
    }
    // The legacy aliases (spec 9.5) are guarded the same way.
    expect((await fetch(`${rt.url}status`)).status).toBe(401);
    expect((await fetch(`${rt.url}internal/runtime-metadata`, { headers: { authorization: `Bearer ${operator.key}` } })).status).toBe(200);
  });
});

describe('the studio child (loopback, RUNTIME_CONTROL_TOKEN only)', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await startTestRuntime({ env: { RUNTIME_CONTROL_TOKEN: CONTROL_TOKEN, INTERNAL_RUNTIME_CONTROL_ENABLED: 'true' } });
  });
  afterAll(async () => rt?.close());

  it('keeps POST / and the thread endpoints open to local tools, the registry endpoints behind the token', async () => {
    expect((await rpc(rt.url)).body.result.status.state).toBe('completed');
    expect((await fetch(`${rt.url}api/v1/memory/threads`)).status).toBe(200);
    const without = await fetch(`${rt.url}api/v1/registry/metadata`);
    expect(without.status).toBe(401);
    expect(((await without.json()) as any).error.code).toBe('UNAUTHORIZED');
    expect((await fetch(`${rt.url}api/v1/registry/metadata`, { headers: { authorization: `Bearer ${CONTROL_TOKEN}` } })).status).toBe(200);
    const card: any = await (await fetch(`${rt.url}.well-known/agent-card.json`)).json();
    expect(card.securitySchemes).toBeUndefined();
  });
});
