// The RuntimeClient against a real loopback server answering as a runtime would (and as it
// should not): typed results, replies read leniently, anything unusable reported, not thrown.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RuntimeClient } from './client.ts';

const metadata = {
  agent: 'a',
  generation: 3,
  loaded_at: '2026-01-01T00:00:00Z',
  exit_node: 'answer',
  components: [],
  input_contracts: [{ schema: 's', name: 'S', json_schema: null }],
  run_options: [],
};
const replies: Record<string, [number, unknown]> = {
  '/ok/api/v1/registry/reload': [
    200,
    {
      success: true,
      data: {
        reloaded: true,
        generation: 4,
        previous_generation: 3,
        changed: [{ kind: 'prompt', name: 'p', file: 'prompts/p.md', change: 'modified', previous_hash: 'a', hash: 'b' }],
      },
      error: null,
    },
  ],
  '/failed/api/v1/registry/reload': [
    409,
    { success: false, data: null, error: { code: 'RELOAD_FAILED', message: 'm', generation: 3, diagnostics: [{ file: 'agent.json', message: 'bad' }] } },
  ],
  '/busy/api/v1/registry/reload': [409, { success: false, data: null, error: { code: 'RUNTIME_UNAVAILABLE', message: 'busy' } }],
  '/ok/api/v1/registry/metadata': [200, { success: true, data: { ...metadata, added_later: true }, error: null }],
  '/drifted/api/v1/registry/metadata': [200, { success: true, data: { ...metadata, generation: 'three' }, error: null }],
  '/down/api/v1/registry/metadata': [500, { success: false }],
  '/ok/graph': [200, { nodes: [], edges: [] }],
};
let server: http.Server;
let base = '';
const headers: http.IncomingHttpHeaders[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    headers.push(req.headers);
    const [status, body] = replies[req.url!] ?? [404, {}];
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const client = (prefix: string | null) =>
  new RuntimeClient({ waitReady: async () => (prefix === null ? null : `${base}${prefix}/`), controlHeaders: () => ({ authorization: 'Bearer t' }) });

describe('RuntimeClient', () => {
  it('reload: reloaded, failed with diagnostics, or unavailable with what the runtime said', async () => {
    const c = client('ok');
    expect(await c.reload(`${base}ok/`)).toMatchObject({ kind: 'reloaded', outcome: { generation: 4, changed: [{ change: 'modified', hash: 'b' }] } });
    expect(headers.at(-1)!.authorization).toBe('Bearer t');
    expect(await c.reload(`${base}failed/`)).toEqual({
      kind: 'failed',
      failure: { code: 'RELOAD_FAILED', message: 'm', generation: 3, diagnostics: [{ file: 'agent.json', message: 'bad' }] },
    });
    expect(await c.reload(`${base}busy/`)).toMatchObject({ kind: 'unavailable', status: 409, error: null, body: { error: { code: 'RUNTIME_UNAVAILABLE' } } });
    expect(await c.reload('http://127.0.0.1:9/')).toMatchObject({ kind: 'unavailable', status: null, error: expect.any(String) });
  });

  it('metadata: read leniently (unknown keys dropped), a drifted or failed reply is no answer', async () => {
    expect(await client('ok').metadata(0)).toEqual({ ok: true, value: metadata });
    expect(await client('drifted').metadata(0)).toMatchObject({ ok: false, reason: 'no_answer', detail: expect.stringContaining('does not understand') });
    expect(await client('down').metadata(0)).toEqual({ ok: false, reason: 'no_answer', detail: 'HTTP 500', status: 500 });
    expect(await client(null).metadata(0)).toEqual({ ok: false, reason: 'not_running' });
  });

  it('graph and card pass through as the runtime answers them; health is a 200', async () => {
    expect(await client('ok').graph(0)).toEqual({ ok: true, value: { nodes: [], edges: [] } });
    expect(await client('ok').agentCard(0)).toEqual({ ok: false, reason: 'no_answer', detail: 'HTTP 404', status: 404 });
    expect(await client('ok').healthy(`${base}ok/`, 1000)).toBe(false);
    expect(await client('ok').healthy('http://127.0.0.1:9/', 1000)).toBe(false);
  });
});
