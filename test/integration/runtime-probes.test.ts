// The probes an orchestrator polls (docs/deployment.md, "Shutdown and health"): /livez says the
// process answers and never asks the database, so a database blip does not restart replicas;
// /readyz names the failing check; both are public like /healthz. The blip is real: the
// runtime reaches PostgreSQL through a TCP relay this test stops and starts again.
import net from 'node:net';
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { startTestRuntime } from './helpers/runtime.ts';
import { dropSchema, newSchema } from './helpers/postgres.ts';

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

/** A relay from a loopback port to PostgreSQL that can be cut (every connection dropped, no
 * new ones accepted) and restored on the same port. */
async function pgRelay() {
  const sockets = new Set<net.Socket>();
  let server: net.Server | null = null;
  let port = 0;
  const open = () =>
    new Promise<void>((resolve) => {
      server = net.createServer((client) => {
        const upstream = net.connect(5432, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => undefined);
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, '127.0.0.1', () => {
        port = (server!.address() as net.AddressInfo).port;
        resolve();
      });
    });
  await open();
  return {
    port: () => port,
    cut: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server!.close(() => resolve());
      }),
    restore: open,
  };
}

/** GET with a foreign Host (what a loopback runtime refuses everywhere but its public paths). */
function get(url: string, host?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: host ? { host } : {}, agent: false }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

describe('probes', () => {
  it('/livez and /readyz are public: any Host, no credentials', async () => {
    const rt = await startTestRuntime();
    try {
      expect(await get(`${rt.url}livez`, 'evil.example')).toMatchObject({ status: 200, body: { status: 'alive' } });
      expect(await get(`${rt.url}readyz`, 'evil.example')).toMatchObject({
        status: 200,
        body: { status: 'ready', checks: { draining: { ok: true }, project: { ok: true }, store: { ok: true }, migrations: { ok: true } } },
      });
    } finally {
      await rt.close();
    }
  });

  it('stay public with caller and operator authentication configured', async () => {
    const rt = await startTestRuntime({ env: { A2A_API_KEYS: newKey('alice').entry, MANAGEMENT_API_KEYS: newKey('ops').entry } });
    try {
      expect((await get(`${rt.url}api/v1/status`)).status).toBe(401); // the management API does need a credential
      expect((await get(`${rt.url}livez`)).status).toBe(200);
      expect((await get(`${rt.url}readyz`)).status).toBe(200);
    } finally {
      await rt.close();
    }
  });

  it('a database blip makes the runtime not ready but leaves it alive, and ready again once the database is back', async () => {
    const relay = await pgRelay();
    const schema = newSchema('probes');
    schemas.push(schema);
    const dsn = `postgresql://postgres@127.0.0.1:${relay.port()}/test`;
    const rt = await startTestRuntime({ env: { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: dsn, POSTGRES_SCHEMA: schema } });
    try {
      expect((await get(`${rt.url}readyz`)).status).toBe(200);
      await relay.cut();
      const down = await get(`${rt.url}readyz`);
      expect(down).toMatchObject({ status: 503, body: { status: 'not_ready', failing: 'store', checks: { store: { ok: false }, draining: { ok: true } } } });
      expect(down.body.reason).toMatch(/^store not reachable: /);
      expect(down.body.reason).not.toContain(dsn);
      expect((await get(`${rt.url}healthz`)).status).toBe(503);
      expect(await get(`${rt.url}livez`)).toMatchObject({ status: 200, body: { status: 'alive' } });
      await relay.restore();
      expect(await get(`${rt.url}readyz`)).toMatchObject({ status: 200, body: { status: 'ready' } });
    } finally {
      await rt.close();
      await relay.cut();
    }
  });
});
