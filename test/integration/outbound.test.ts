// The runtime's one outbound connection pool (spec 8): a limit on
// requests in flight that holds under a fan-out of 20 calls against a slow local server, a
// queue wait longer than the call's timeout reported as UPSTREAM_TIMEOUT, slots held while a
// streamed body is read, and the model client going through it.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { OutboundPool, OutboundQueueTimeoutError } from '../../src/main/runtime/outbound/pool.ts';
import { toAgentError } from '../../src/main/runtime/execution/errors.ts';
import { sendParams, startTestRuntime } from './helpers/runtime.ts';
import { startFakeOpenAi, type FakeOpenAi } from './helpers/fake-openai.ts';
import { waitFor } from './helpers/playground-studio.ts';

/** A server that answers each request once `release()` is called, counting concurrency. */
function slowServer() {
  let active = 0;
  let peak = 0;
  const held: (() => void)[] = [];
  const server = http.createServer((req, res) => {
    active += 1;
    peak = Math.max(peak, active);
    held.push(() => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('part 1 ');
      // The body ends a moment later: the slot must stay taken until it is read through.
      setImmediate(() => {
        res.end('part 2');
        active -= 1;
      });
    });
  });
  return {
    server,
    get peak() {
      return peak;
    },
    get waiting() {
      return held.length;
    },
    releaseAll() {
      for (const f of held.splice(0)) f();
    },
    async start() {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    },
  };
}

describe('the outbound connection pool', () => {
  const slow = slowServer();
  let url: string;
  beforeAll(async () => {
    url = await slow.start();
  });
  afterAll(async () => {
    slow.releaseAll();
    slow.server.closeAllConnections();
    await new Promise((r) => slow.server.close(r));
  });

  it('holds its limit under a fan-out of 20 calls: the rest wait and all complete', async () => {
    const pool = new OutboundPool(4, 30_000);
    const calls = Array.from({ length: 20 }, (_, i) => pool.fetch(`${url}?call=${i}`).then((r) => r.text()));
    await waitFor(async () => slow.waiting === 4, 10_000, '4 requests at the server');
    expect(pool.status()).toMatchObject({ limit: 4, in_use: 4, queued: 16 });
    // Let the server answer whatever arrives until all 20 are done.
    const pump = setInterval(() => slow.releaseAll(), 5);
    try {
      expect(await Promise.all(calls)).toEqual(Array(20).fill('part 1 part 2'));
    } finally {
      clearInterval(pump);
    }
    expect(slow.peak).toBe(4);
    expect(pool.status()).toMatchObject({ in_use: 0, queued: 0, requests: 20 });
    await pool.close();
  });

  it("ends a wait longer than the call's timeout as UPSTREAM_TIMEOUT, and frees nothing it did not take", async () => {
    const pool = new OutboundPool(1, 30_000);
    const first = pool.fetch(url);
    await waitFor(async () => slow.waiting === 1, 10_000, 'the first request at the server');
    const err = await pool.fetch(url, { signal: AbortSignal.timeout(100) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundQueueTimeoutError);
    expect(toAgentError(err)).toMatchObject({ code: 'UPSTREAM_TIMEOUT', reason: 'outbound_pool_busy' });
    expect(pool.status()).toMatchObject({ in_use: 1, queued: 0, queue_timeouts: 1 });
    slow.releaseAll();
    const res = await first;
    expect(pool.status().in_use).toBe(1); // the body is not read yet: the connection is in use
    expect(await res.text()).toBe('part 1 part 2');
    expect(pool.status().in_use).toBe(0);
    await pool.close();
  });
});

describe('the model client goes through the pool', () => {
  let fake: FakeOpenAi;
  beforeAll(async () => {
    fake = await startFakeOpenAi();
  });
  afterAll(async () => fake?.close());

  it('counts the model call in /api/v1/status outbound, with the configured limit', async () => {
    const rt = await startTestRuntime({
      env: { OPENAI_BASE_URL: fake.url, OPENAI_API_KEY: 'k', OPENAI_MODEL: 'fake-model', MODEL_MAX_RETRIES: '0', OUTBOUND_MAX_CONNECTIONS: '3' },
    });
    try {
      const res = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as { result: Task };
      expect(res.result.status.state).toBe('completed');
      expect(fake.requests.length).toBeGreaterThan(0);
      const status = ((await (await fetch(`${rt.url}api/v1/status`)).json()) as { data: { outbound: Record<string, number> } }).data.outbound;
      expect(status).toMatchObject({ limit: 3, in_use: 0, queued: 0 });
      expect(status.requests).toBe(fake.requests.length);
    } finally {
      await rt.close();
    }
  });
});
