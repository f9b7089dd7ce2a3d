// What a hostile page or a careless client can do to the runtime and the studio, over real
// HTTP (docs/security.md): cross-site control and DNS rebinding are refused, malformed
// request lines and bodies get errors in the surface's own shape, and the studio still
// drives its runtime child through the contract (the control token).
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, rawRpc, tempDir, type TestRuntime } from './helpers/runtime.ts';
import { rawRequest, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { deepJsonText } from '../fuzz/support.ts';

/** Sends raw bytes (a request line and headers exactly as given) and returns the status line and body. */
function rawHttp(port: number, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => (data += c));
    socket.on('end', () => {
      const [head, ...rest] = data.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: rest.join('\r\n\r\n') });
    });
    socket.on('error', reject);
  });
}

function post(
  url: string,
  body: Buffer | string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-length': String(Buffer.byteLength(body)), ...headers } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const send = (text: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'message/send',
  params: { message: { kind: 'message', messageId: `m-${Math.random()}`, role: 'user', parts: [{ kind: 'text', text }], ...extra } },
});

describe('the runtime on loopback', () => {
  let rt: TestRuntime;
  let port: number;
  let threadId: string;

  beforeAll(async () => {
    rt = await startTestRuntime({
      env: { INTERNAL_RUNTIME_CONTROL_ENABLED: 'true', RUNTIME_CONTROL_TOKEN: 'secret-token', A2A_CORS_ORIGINS: 'https://app.example.com' },
    });
    port = Number(new URL(rt.url).port);
    const done = await rawRpc(rt.url, send('I want a refund for order ORD-12345'));
    threadId = done.result.contextId;
  });
  afterAll(() => rt.close());

  it('refuses a cross-site text/plain POST to the management API, and migrates nothing', async () => {
    const res = await post(`${rt.url}api/v1/memory/migrate-agent-id`, JSON.stringify({ old_id: 'test-agent', new_id: 'attacker' }), {
      'content-type': 'text/plain',
      origin: 'http://evil.example',
    });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.body)).toMatchObject({ success: false, data: null, error: { code: 'FORBIDDEN_ORIGIN' } });
    // Same origin but not JSON: 415 in the envelope, still nothing migrated.
    const plain = await post(`${rt.url}api/v1/memory/migrate-agent-id`, JSON.stringify({ old_id: 'test-agent', new_id: 'attacker' }), {
      'content-type': 'text/plain',
    });
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const threads = (await (await fetch(`${rt.url}api/v1/memory/threads`)).json()) as any;
    expect(threads.data.threads).toContain(threadId);
  });

  it('refuses a foreign Host everywhere but the agent card and /healthz (DNS rebinding)', async () => {
    const foreign = { host: 'attacker.example' };
    for (const path of ['api/v1/memory/threads', 'api/v1/status', 'graph']) {
      const res = await rawRequest(`${rt.url}${path}`, { headers: foreign });
      expect(res.status, path).toBe(403);
      expect(JSON.parse(res.body).error.code).toBe('FORBIDDEN_HOST');
    }
    const rpc = await rawRequest(rt.url, { method: 'POST', headers: { ...foreign, 'content-type': 'application/json' }, body: JSON.stringify(send('hi')) });
    expect(rpc.status).toBe(403);
    expect(JSON.parse(rpc.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const card = await rawRequest(`${rt.url}.well-known/agent-card.json`, { headers: { ...foreign, origin: 'http://evil.example' } });
    expect(card.status).toBe(200);
    expect(card.headers['access-control-allow-origin']).toBe('*');
    expect((await rawRequest(`${rt.url}healthz`, { headers: foreign })).status).toBe(200);
  });

  it('lets the origins in A2A_CORS_ORIGINS call POST / from a browser, and no one else', async () => {
    const preflight = await rawRequest(rt.url, { method: 'OPTIONS', headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example.com');
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    const allowed = await rawRequest(rt.url, {
      method: 'POST',
      headers: { origin: 'https://app.example.com', 'content-type': 'application/json' },
      body: JSON.stringify(send('How do I reset my password?')),
    });
    expect(JSON.parse(allowed.body).result.status.state).toBe('completed');
    const other = await rawRequest(rt.url, {
      method: 'POST',
      headers: { origin: 'https://other.example.com', 'content-type': 'application/json' },
      body: JSON.stringify(send('hi')),
    });
    expect(other.status).toBe(403);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    // The management API never sends CORS headers.
    const mgmt = await rawRequest(`${rt.url}api/v1/status`, { method: 'OPTIONS', headers: { origin: 'https://app.example.com' } });
    expect(mgmt.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(mgmt.body).success).toBe(false);
  });

  it('refuses two Host headers and an absolute-form target naming another host (400); routes one naming itself', async () => {
    const two = await rawHttp(port, `GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`);
    expect(two.status).toBe(400);
    expect(JSON.parse(two.body).error.code).toBe('BAD_REQUEST');
    const other = await rawHttp(port, `GET http://attacker.example/api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(other.status).toBe(400);
    const self = await rawHttp(port, `GET http://127.0.0.1:${port}/api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    expect(self.status).toBe(200);
    expect(JSON.parse(self.body).data.agent_id).toBe('test-agent');
  });

  it('refuses a card URL with spaces or control characters, which it could not serve or save as given', async () => {
    for (const url of ['https://a.example.com/x  ', 'https://a.example.com/a\nb', 'https://a.example.com/a b']) {
      const res = await fetch(`${rt.url}api/v1/card/url`, { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });
      expect(res.status, JSON.stringify(url)).toBe(400);
      expect(((await res.json()) as any).error).toMatchObject({ code: 'INVALID_PARAM', field: 'url' });
    }
  });

  it('needs the control token for the registry endpoints', async () => {
    const without = await fetch(`${rt.url}api/v1/registry/reload`, { method: 'POST' });
    expect(without.status).toBe(401);
    expect(((await without.json()) as any).error.code).toBe('UNAUTHORIZED');
    expect((await fetch(`${rt.url}internal/runtime-metadata`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    const meta = (await (await fetch(`${rt.url}api/v1/registry/metadata`, { headers: { authorization: 'Bearer secret-token' } })).json()) as any;
    expect(meta.data.input_contracts.map((c: { schema: string }) => c.schema)).toContain('support.ticket/1');
  });

  it('answers every body problem on POST / as a JSON-RPC error, never an HTML page', async () => {
    const cases: [Record<string, string>, Buffer | string, number, number][] = [
      [{ 'content-type': 'application/json; charset=koi8-x' }, '{}', 415, -32600],
      [{ 'content-type': 'application/json; charset=utf-16' }, '{}', 415, -32600],
      [{ 'content-type': 'application/json', 'content-encoding': 'x-unknown' }, '{}', 415, -32600],
      [{ 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'not gzip at all', 400, -32700],
      [{ 'content-type': 'application/json', 'content-encoding': 'br' }, 'not brotli', 400, -32700],
      [{ 'content-type': 'application/json' }, '{"jsonrpc": ', 400, -32700],
      [{ 'content-type': 'text/plain' }, JSON.stringify(send('hi')), 415, -32600],
    ];
    for (const [headers, body, status, code] of cases) {
      const res = await post(rt.url, body, headers);
      expect(res.status, JSON.stringify(headers)).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code } });
    }
    // A valid body under a real encoding is read.
    const gz = await post(rt.url, zlib.gzipSync(JSON.stringify(send('How do I reset my password?'))), {
      'content-type': 'application/json',
      'content-encoding': 'gzip',
    });
    expect(JSON.parse(gz.body).result.status.state).toBe('completed');
  });

  it('rejects JSON nested past the limit up front, and the thread keeps answering', async () => {
    for (const where of ['data', 'message.metadata', 'part.metadata']) {
      const nested = deepJsonText(5000);
      const part =
        where === 'data'
          ? `{"kind":"data","data":${nested}}`
          : where === 'part.metadata'
            ? `{"kind":"text","text":"hi","metadata":${nested}}`
            : '{"kind":"text","text":"hi"}';
      const meta = where === 'message.metadata' ? `,"metadata":${nested}` : '';
      const body = `{"jsonrpc":"2.0","id":7,"method":"message/send","params":{"message":{"messageId":"deep-${where}","contextId":"${threadId}","role":"user","parts":[${part}]${meta}}}}`;
      const res = await post(rt.url, body, { 'content-type': 'application/json' });
      expect(res.status, where).toBe(400);
      expect(JSON.parse(res.body).error).toMatchObject({ code: -32600, message: expect.stringContaining('deeper than 64') });
    }
    // 60 levels are within the limit and the conversation goes on.
    const ok = await post(
      rt.url,
      `{"jsonrpc":"2.0","id":8,"method":"message/send","params":{"message":{"messageId":"ok-60","contextId":"${threadId}","role":"user","parts":[{"kind":"text","text":"How do I reset my password?"},{"kind":"data","data":${deepJsonText(55)}}]}}}`,
      { 'content-type': 'application/json' },
    );
    expect(JSON.parse(ok.body).result.status.state).toBe('completed');
    const later = await rawRpc(rt.url, send('How do I reset my password?', { contextId: threadId }));
    expect(later.result.status.state).toBe('completed');
  });

  it('takes inline file bytes of 6 MB and more (no regex recursion)', async () => {
    const bytes = Buffer.alloc(9 * 1024 * 1024, 7).toString('base64');
    const res = await rawRpc(rt.url, {
      ...send('How do I reset my password?'),
      params: {
        message: {
          kind: 'message',
          messageId: 'big',
          role: 'user',
          parts: [
            { kind: 'text', text: 'How do I reset my password?' },
            { kind: 'file', file: { name: 'big.bin', bytes } },
          ],
        },
      },
    });
    expect(res.result.status.state).toBe('completed');
    const bad = await rawRpc(rt.url, {
      ...send('x'),
      params: { message: { kind: 'message', messageId: 'bad', role: 'user', parts: [{ kind: 'file', file: { bytes: `${bytes.slice(0, -4)}@@@=` } }] } },
    });
    expect(bad.error).toMatchObject({ code: -32602, data: { field: 'params.message.parts[0].file.bytes' } });
  });

  it('answers wrongly typed message fields with -32602, naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ taskId: ['t'] }, 'params.message.taskId'],
      [{ taskId: { id: 't' } }, 'params.message.taskId'],
      [{ referenceTaskIds: [[]] }, 'params.message.referenceTaskIds'],
      [{ metadata: 'x' }, 'params.message.metadata'],
      [{ kind: 'task' }, 'params.message.kind'],
    ];
    for (const [extra, field] of cases) {
      const res = await rawRpc(rt.url, send('hi', extra));
      expect(res.error, field).toMatchObject({ code: -32602, data: { field } });
    }
    const config = await rawRpc(rt.url, { ...send('hi'), params: { ...send('hi').params, configuration: { blocking: 'no' } } });
    expect(config.error).toMatchObject({ code: -32602, data: { field: 'params.configuration.blocking' } });
  });

  it('checks the method, then the params, then the id (spec 4.1 rule 1)', async () => {
    expect((await rawRpc(rt.url, { jsonrpc: '2.0', method: 'nope/nope' })).error.code).toBe(-32601);
    expect((await rawRpc(rt.url, { jsonrpc: '2.0', method: 'message/send', params: [] })).error.code).toBe(-32602);
    expect((await rawRpc(rt.url, { jsonrpc: '2.0', method: 'tasks/get', params: {} })).error.code).toBe(-32602);
    const noId = await rawRpc(rt.url, { jsonrpc: '2.0', method: 'message/send', params: send('hi').params });
    expect(noId).toMatchObject({ id: null, error: { code: -32600 } });
  });

  it('serves the agent card at its url (GET /) too', async () => {
    const card = (await (await fetch(rt.url)).json()) as any;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', name: 'support-desk', url: rt.url });
  });

  it('keeps answering -32002 to a cancel of a finished task', async () => {
    const done = await rawRpc(rt.url, send('I want a refund for order ORD-12345'));
    for (let i = 0; i < 2; i++) {
      const res = await rawRpc(rt.url, { jsonrpc: '2.0', id: i, method: 'tasks/cancel', params: { id: done.result.id } });
      expect(res.error.code).toBe(-32002);
    }
    const task = await rawRpc(rt.url, { jsonrpc: '2.0', id: 9, method: 'tasks/get', params: { id: done.result.id } });
    expect(task.result.status.state).toBe('completed');
  });

  it('answers a bad percent-encoding, an unknown route and an unexpected failure in the envelope', async () => {
    const pct = await fetch(`${rt.url}api/v1/memory/threads/%ZZ/messages`);
    expect(pct.status).toBe(400);
    expect(((await pct.json()) as any).error.code).toBe('BAD_REQUEST');
    const unknown = await fetch(`${rt.url}no/such/route`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('NOT_FOUND');
  });
});

describe("the studio's static files", () => {
  it('answers a client error a library raises (an unsatisfiable Range) as 4xx JSON, and API paths never as HTML', async () => {
    const rendererDir = tempDir('renderer');
    const t = await startTestStudio({ rendererDir, runtimeCommand: false });
    try {
      // Not built yet: the page says how; built while the studio runs: served on the next load.
      expect((await rawRequest(t.url)).body).toMatch(/npm run build:renderer/);
      fs.mkdirSync(path.join(rendererDir, 'assets'));
      fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>studio</title>');
      fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
      expect((await rawRequest(t.url)).body).toMatch(/<title>studio/);

      const res = await rawRequest(`${t.url}assets/app.js`, { headers: { range: 'bytes=999999-' } });
      expect(res.status).toBe(416);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body).detail.error).toBe('range_not_satisfiable');
      expect((await rawRequest(`${t.url}assets/app.js`)).body).toBe('console.log(1)');
      for (const target of ['/api/..', '/internal/%2e%2e', '/api/../index.html', '/api/playground/v1/../../index.html']) {
        const r = await rawHttp(t.studio.port, `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${t.studio.port}\r\nConnection: close\r\n\r\n`);
        expect(r.status, target).toBe(404);
        expect(JSON.parse(r.body).detail.error, target).toBe('not_found');
      }
      // A directory is not redirected to an HTML page: the app's own routes take it.
      expect((await rawRequest(`${t.url}assets`)).body).toMatch(/<title>studio/);
    } finally {
      await t.close();
    }
  });
});

describe('requests Node refuses before any route', () => {
  it('get JSON in the surface shape on both servers: malformed HTTP, oversized headers, CONNECT', async () => {
    const rt = await startTestRuntime();
    const t = await startTestStudio({ runtimeCommand: false });
    try {
      for (const [port, shape] of [
        [Number(new URL(rt.url).port), (b: any) => expect(b).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } })],
        [t.studio.port, (b: any) => expect(b.detail.error).toBe('invalid_request')],
      ] as const) {
        const bad = await rawHttp(port, 'GET /a b HTTP/1.1\r\nHost: x\r\n\r\n');
        expect(bad.status).toBe(400);
        shape(JSON.parse(bad.body));
        const big = await rawHttp(port, `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
        expect(big.status).toBe(431);
        shape(JSON.parse(big.body));
        const connect = await rawHttp(port, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
        expect(connect.status).toBe(405);
        expect(() => JSON.parse(connect.body)).not.toThrow();
      }
    } finally {
      await t.close();
      await rt.close();
    }
  });
});

describe('an unexpected failure inside a management request', () => {
  it('is INTERNAL_ERROR (500) in the envelope, not RUNTIME_UNAVAILABLE, with no stack', async () => {
    const rt = await startTestRuntime();
    try {
      await rt.runtime.context.store.close(); // every store call now throws
      const res = await fetch(`${rt.url}api/v1/memory/threads`);
      expect(res.status).toBe(500);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ success: false, data: null, error: { code: 'INTERNAL_ERROR' } });
      expect(JSON.stringify(body)).not.toMatch(/\n\s+at |node_modules|\.ts:\d+/);
    } finally {
      await rt.close().catch(() => undefined);
    }
  });
});

describe('the studio', () => {
  let t: TestStudio;
  beforeAll(async () => {
    t = await startTestStudio();
    await t.studio.runtime.waitReady(60_000);
  });
  afterAll(() => t.close());

  it('still drives its runtime child, which refuses the same control from anyone without its token', async () => {
    const child = t.studio.runtime.status()!.url!;
    expect((await fetch(`${child}api/v1/registry/reload`, { method: 'POST' })).status).toBe(401);
    const contracts = await t.call('GET', '/composer-schema');
    expect(contracts.status).toBe(200);
    expect(contracts.body.contracts[0]).toMatchObject({ schema: 'support.ticket/1', json_schema: expect.any(Object) });
    const s = (await t.call('POST', '/sessions', {})).body.session_id;
    const run = (
      await t.call('POST', `/sessions/${s}/runs`, { parts: [{ kind: 'text', text: 'How do I reset my password?' }], changed_files: ['prompts/system.md'] })
    ).body.run_id;
    expect((await waitForRun(t, run)).status).toBe('completed');
  });

  it('answers bad ids, bodies and methods with {detail} and a 4xx', async () => {
    expect((await t.call('GET', '/sessions/%ZZ')).status).toBe(400);
    expect((await t.call('GET', '/runs/%')).body.detail.error).toBe('invalid_request');
    const gz = await post(`${t.api}/sessions`, 'not gzip', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(gz.status).toBe(400);
    expect(JSON.parse(gz.body).detail.error).toBe('invalid_request');
    const enc = await post(`${t.api}/sessions`, '{}', { 'content-type': 'application/json', 'content-encoding': 'x-unknown' });
    expect(enc.status).toBe(415);
    const s = (await t.call('POST', '/sessions', {})).body.session_id;
    const deep = await post(`${t.api}/sessions/${s}/runs`, `{"parts":[{"kind":"data","data":${deepJsonText(10_000)}}]}`, {
      'content-type': 'application/json',
    });
    expect(deep.status).toBe(400);
    expect(JSON.parse(deep.body).detail.message).toMatch(/deeper than 64/);
    const options = await rawRequest(`${t.api}/sessions`, { method: 'OPTIONS' });
    expect(options.status).toBe(405);
    expect(JSON.parse(options.body).detail.error).toBe('method_not_allowed');
    const port = t.studio.port;
    const two = await rawHttp(
      port,
      `GET /api/playground/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nHost: attacker.example\r\nConnection: close\r\n\r\n`,
    );
    expect(two.status).toBe(400);
    expect(JSON.parse(two.body).detail.error).toBe('invalid_request');
    const other = await rawHttp(
      port,
      `GET http://attacker.example/api/playground/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    expect(other.status).toBe(400);
  });

  it('carries an inline file of 6 MB to the runtime and back, and refuses a body over its limit with 413', async () => {
    const s = (await t.call('POST', '/sessions', {})).body.session_id;
    const bytes = Buffer.alloc(6 * 1024 * 1024, 3).toString('base64');
    const accepted = await t.call('POST', `/sessions/${s}/runs`, {
      parts: [
        { kind: 'text', text: 'How do I reset my password?' },
        { kind: 'file', name: 'big.bin', bytes_base64: bytes },
      ],
    });
    expect(accepted.status).toBe(202);
    expect((await waitForRun(t, accepted.body.run_id)).status).toBe('completed');
    const tooBig = await t.call('POST', `/sessions/${s}/runs`, {
      parts: [{ kind: 'file', name: 'huge.bin', bytes_base64: Buffer.alloc(19 * 1024 * 1024).toString('base64') }],
    });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.detail.error).toBe('payload_too_large');
  });
});
