// SIGTERM drains the runtime (docs/deployment.md, "Shutdown and health"; D-49), on SQLite and
// on PostgreSQL: at once not ready and refusing new work, in-flight turns finish within
// SHUTDOWN_GRACE_MS, what still runs at its end ends `failed` (runtime_shutdown) with its
// stream's final event and, on PostgreSQL, its lease released; a second signal stops at once.
// The real command in its own process, real signals, the official client.
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import type { AgentCard } from '@a2a-js/sdk';
import { EXAMPLE, sendParams, startTestRuntime, tempDir } from './helpers/runtime.ts';
import { logged, runRuntimeCli, type LogEntry, type RuntimeCli } from './helpers/cli-process.ts';
import { TEST_DSN, dropSchema, newSchema, sql } from './helpers/postgres.ts';

const schemas: string[] = [];
afterAll(async () => {
  for (const s of schemas) await dropSchema(s);
});

type Store = 'sqlite' | 'postgres';

/** The store's settings, a schema of its own for PostgreSQL (a 10-minute lease: only the
 * release on shutdown can make the task final at once). */
function storeEnv(store: Store): { env: Record<string, string>; schema?: string } {
  if (store === 'sqlite') return { env: {} };
  const schema = newSchema('drain');
  schemas.push(schema);
  return { schema, env: { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema, TASK_LEASE_MS: '600000' } };
}

async function start(store: Store, graceMs: number) {
  const { env, schema } = storeEnv(store);
  const dataDir = tempDir('drain');
  const p = runRuntimeCli(['--project', EXAMPLE, '--port', '0', '--data-dir', dataDir], { ...env, SHUTDOWN_GRACE_MS: String(graceMs), LOG_LEVEL: 'debug' });
  const url = await p.ready;
  const card = (await (await fetch(`${url}.well-known/agent-card.json`)).json()) as AgentCard;
  return { p, url, env, schema, dataDir, client: new A2AClient({ ...card, url }) };
}

/** A plain HTTP request on `agent` (a keep-alive connection opened before the signal, or none). */
function request(url: string, agent: http.Agent | false, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, agent, headers: body ? { 'content-type': 'application/json' } : {} }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}

const slow = (text: string, delayMs: number) => sendParams(text, {}, { metadata: { scriptedDelayMs: delayMs, scriptedChunks: 6 } });

/** Turns started (the debug log's invoke.start trace events). */
const started = (p: RuntimeCli, n: number) =>
  p.until(() => p.entries.filter((e) => (e.trace as { name?: string } | undefined)?.name === 'invoke.start').length >= n, `${n} turn(s) started`);

/** Reads a stream to its end. */
async function drainStream(stream: AsyncGenerator<any>): Promise<any[]> {
  const events: any[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

const sendBody = (id: number) => ({ jsonrpc: '2.0', id, method: 'message/send', params: slow('hello', 0) });

describe.each(['sqlite', 'postgres'] as const)('SIGTERM on %s', (store) => {
  it('finishes in-flight turns within the grace period: not ready at once, new work refused, exit 0', async () => {
    const { p, url, client } = await start(store, 60_000);
    const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const rpcAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      await p.until(logged(/^runtime started: /), 'the start-up line');
      expect((await request(`${url}livez`, probeAgent)).status).toBe(200);
      const ready = await request(`${url}readyz`, rpcAgent); // opens the keep-alive connection used below
      expect(ready).toMatchObject({ status: 200, body: { status: 'ready', checks: { store: { ok: true }, draining: { ok: true } } } });

      const stream = drainStream(client.sendMessageStream(slow('How do I reset my password?', 400)));
      const blocking = client.sendMessage(slow('How do I change my address?', 400));
      await started(p, 2);
      p.child.kill('SIGTERM');
      const draining = await p.until(logged(/^SIGTERM: draining/), 'drain started');
      expect(draining).toMatchObject({ tasks_running: 2, grace_ms: 60_000 });

      // not ready, on a connection opened before the signal; a new connection is refused
      const readyz = await request(`${url}readyz`, probeAgent);
      expect(readyz).toMatchObject({ status: 503, body: { status: 'not_ready', failing: 'draining', checks: { draining: { ok: false } } } });
      expect((await request(`${url}healthz`, probeAgent)).status).toBe(503);
      expect((await request(`${url}livez`, probeAgent)).status).toBe(200);
      await expect(request(`${url}livez`, false)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      // the management API answers in its envelope (this answer closes the connection)
      const status = await request(`${url}api/v1/status`, probeAgent);
      expect(status).toMatchObject({ status: 503, body: { success: false, data: null, error: { code: 'SHUTTING_DOWN' } } });
      // new work refused in the JSON-RPC shape (HTTP 503, the request's id)
      const refused = await request(url, rpcAgent, 'POST', sendBody(7));
      expect(refused).toMatchObject({ status: 503, body: { jsonrpc: '2.0', id: 7, error: { code: -32020, data: { errorReason: 'runtime_shutting_down' } } } });

      // the in-flight turns finish and their clients get the answers
      const events = await stream;
      expect(events.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      expect(((await blocking) as any).result.status.state).toBe('completed');
      expect(await p.exited).toEqual({ code: 0, signal: null });
      await p.until(logged(/^drain: all in-flight work finished/), 'drain done');
      await p.until(logged(/^runtime stopped/), 'the shutdown line');
      expect(p.entries.filter(logged(/task ended failed/))).toEqual([]);
    } finally {
      p.kill();
      probeAgent.destroy();
      rpcAgent.destroy();
    }
  });

  it('ends what still runs at the end of the grace period failed (runtime_shutdown): the stream gets the final event', async () => {
    const { p, client, env, schema, dataDir } = await start(store, 1);
    try {
      const it = client.sendMessageStream(slow('How do I reset my password?', 5000));
      const first = await it.next();
      const taskId = (first.value as any).id ?? (first.value as any).taskId;
      await started(p, 1);
      p.child.kill('SIGTERM');
      const events = await drainStream(it);
      const last = events.at(-1);
      expect(last).toMatchObject({ kind: 'status-update', taskId, final: true, status: { state: 'failed' } });
      const data = last.status.message.parts.find((pt: any) => pt.kind === 'data').data;
      expect(data).toMatchObject({ errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'runtime_shutdown', retriable: true });
      expect(await p.exited).toEqual({ code: 0, signal: null });
      const forced = (await p.until(logged(/^task ended failed/), 'the forced end')) as LogEntry;
      expect(forced.task_id).toBe(taskId);
      await p.until(logged(/^runtime stopped/), 'the shutdown line');

      if (schema) {
        // the row is final and its lease released: no replica waits for it
        const [row] = await sql<{ state: string; lease_until: Date | null }>(`SELECT state, lease_until FROM "${schema}".a2a_tasks WHERE task_id = $1`, [
          taskId,
        ]);
        expect(row).toEqual({ state: 'failed', lease_until: null });
      }
      // another runtime on the same store sees the task final at once
      const other = await startTestRuntime({ env, dataDir });
      try {
        const got = (await other.client.getTask({ id: taskId })) as any;
        expect(got.result.status.state).toBe('failed');
        expect(got.result.status.message.parts.find((pt: any) => pt.kind === 'data').data.errorReason).toBe('runtime_shutdown');
      } finally {
        await other.close();
      }
    } finally {
      p.kill();
    }
  });
});

describe('a second signal', () => {
  it('stops at once with exit 1', async () => {
    const { p, client } = await start('sqlite', 60_000);
    try {
      const stream = drainStream(client.sendMessageStream(slow('How do I reset my password?', 5000)));
      stream.catch(() => undefined);
      await started(p, 1);
      p.child.kill('SIGTERM');
      await p.until(logged(/^SIGTERM: draining/), 'drain started');
      p.child.kill('SIGINT');
      expect(await p.exited).toEqual({ code: 1, signal: null });
      expect(p.entries.find(logged(/^SIGINT again: stopping at once/))).toBeDefined();
    } finally {
      p.kill();
    }
  });
});

describe('--workers N', () => {
  it('the primary forwards SIGTERM: each worker drains, the in-flight turn completes, exit 0', async () => {
    const p = runRuntimeCli(['--project', EXAMPLE, '--port', '0', '--workers', '2', '--data-dir', tempDir('drain-workers')], {
      SHUTDOWN_GRACE_MS: '60000',
      LOG_LEVEL: 'debug',
    });
    try {
      const url = await p.ready;
      const card = (await (await fetch(`${url}.well-known/agent-card.json`)).json()) as AgentCard;
      const stream = drainStream(new A2AClient({ ...card, url }).sendMessageStream(slow('How do I reset my password?', 400)));
      await started(p, 1);
      p.child.kill('SIGTERM');
      await p.until((e) => e.role === 'primary' && /^SIGTERM: stopping the workers/.test(e.msg ?? ''), 'the primary forwards SIGTERM');
      const busy = await p.until((e) => e.role !== 'primary' && /^SIGTERM: draining/.test(e.msg ?? '') && e.tasks_running === 1, 'the busy worker drains');
      expect((await stream).at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
      expect(await p.exited).toEqual({ code: 0, signal: null });
      expect(p.entries.filter((e) => e.role === 'primary' && /^worker \d stopped/.test(e.msg ?? '')).map((e) => e.code)).toEqual([0, 0]);
      expect(p.entries.find((e) => e.worker === busy.worker && /^drain: all in-flight work finished/.test(e.msg ?? ''))).toBeDefined();
      await p.until((e) => e.role === 'primary' && /^all workers stopped/.test(e.msg ?? ''), 'the primary is done');
    } finally {
      p.kill();
    }
  });
});
