// Replicas on one PostgreSQL database with cluster control on NATS (docs/deployment.md,
// "Replicas"; docs/management-api.md, "Runtime settings"):
//   - settings changed through the management API on one replica apply on the other, survive
//     its restart, and a PUBLIC_AGENT_URL in the environment pins the card URL (SETTING_PINNED);
//   - a client resubscribed on B to a task running on A hears of A's death (kill -9): B's
//     stream ends with the final `failed` status (replica_lost) once the lease has run out.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { EXAMPLE, a2aClientWith, sendParams, spawnRuntime, startTestRuntime, type RuntimeProcess } from './helpers/runtime.ts';
import { startNats, type TestNats } from './helpers/nats.ts';
import { waitFor } from './helpers/playground-studio.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

const LEASE_MS = 1500;

async function api(base: string, p: string, init?: { method: string; body: unknown }): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(p, base), init && { method: init.method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(init.body) });
  return { status: res.status, body: await res.json() };
}
const cardUrl = async (base: string) => ((await (await fetch(`${base}.well-known/agent-card.json`)).json()) as { url: string }).url;

describe('replicas with cluster control: shared settings and a replica that dies', () => {
  const schema = newSchema('failover');
  let nats: TestNats;
  let a: RuntimeProcess;
  let b: RuntimeProcess;
  let env: Record<string, string>;
  const subscribed = (r: RuntimeProcess) =>
    waitFor(async () => (await api(r.url, 'api/v1/status')).body.data.cluster_control?.state === 'subscribed', 10_000, 'cluster control to subscribe');

  beforeAll(async () => {
    await ensurePostgres();
    nats = await startNats();
    env = {
      MEMORY_BACKEND: 'postgres',
      POSTGRES_DSN: TEST_DSN,
      POSTGRES_SCHEMA: schema,
      TASK_LEASE_MS: String(LEASE_MS),
      AGENT_ID: 'failover',
      CLUSTER_CONTROL: 'nats',
      CLUSTER_CONTROL_SECRET: randomBytes(32).toString('base64'),
      NATS_URL: nats.url,
    };
    [a, b] = await Promise.all([spawnRuntime(EXAMPLE, { ...env, REPLICA_ID: 'fo-a' }), spawnRuntime(EXAMPLE, { ...env, REPLICA_ID: 'fo-b' })]);
    await Promise.all([subscribed(a), subscribed(b)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await nats?.stop();
    await dropSchema(schema);
  });

  it('a card URL and memory settings changed on one replica apply on the other and survive its restart; the environment pins the URL', async () => {
    expect((await api(a.url, 'api/v1/card/url')).body.data).toEqual({ url: a.url, source: 'listen_address' });
    const patched = await api(a.url, 'api/v1/card/url', { method: 'PATCH', body: { url: 'https://agents.example.com/failover' } });
    expect(patched.body.data).toMatchObject({ url: 'https://agents.example.com/failover', persisted: true, source: 'runtime_settings' });
    expect((await api(a.url, 'api/v1/memory/config', { method: 'PATCH', body: { window_size: 7 } })).status).toBe(200);
    await waitFor(async () => (await cardUrl(b.url)) === 'https://agents.example.com/failover', 5_000, 'the card URL on B');
    await waitFor(async () => (await api(b.url, 'api/v1/memory/config')).body.data.window_size === 7, 5_000, 'the window on B');

    // B restarts: the stored values win over the manifest (window 20) and the listen address.
    await b.close();
    b = await spawnRuntime(EXAMPLE, { ...env, REPLICA_ID: 'fo-b' });
    expect(await cardUrl(b.url)).toBe('https://agents.example.com/failover');
    expect((await api(b.url, 'api/v1/card/url')).body.data.source).toBe('runtime_settings');
    expect((await api(b.url, 'api/v1/memory/config')).body.data).toMatchObject({ window_size: 7, sources: { window_size: 'runtime_settings' } });

    // A replica whose environment sets PUBLIC_AGENT_URL serves that, says so, and refuses a change.
    const pinned = await startTestRuntime({ env: { ...env, CLUSTER_CONTROL: 'off', PUBLIC_AGENT_URL: 'https://pinned.example.com/' } });
    try {
      expect((await api(pinned.url, 'api/v1/card/url')).body.data).toEqual({ url: 'https://pinned.example.com/', source: 'environment' });
      const refused = await api(pinned.url, 'api/v1/card/url', { method: 'PATCH', body: { url: 'https://elsewhere.example.com/' } });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ success: false, data: null, error: { code: 'SETTING_PINNED', setting: 'PUBLIC_AGENT_URL', source: 'environment' } });
      expect(await cardUrl(pinned.url)).toBe('https://pinned.example.com/');
      expect((await api(pinned.url, 'api/v1/memory/config')).body.data.window_size).toBe(7);
    } finally {
      await pinned.close();
    }
    await subscribed(b);
  });

  it('a client resubscribed on B to a task running on A gets the final failed status when A is killed, and its stream ends', async () => {
    // The card names the URL set above: talk to each server itself.
    const clientA = a2aClientWith(a.url);
    const clientB = a2aClientWith(b.url);
    const sent = clientA.sendMessageStream(
      sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, { metadata: { scriptedDelayMs: 1000, scriptedChunks: 60 } }),
    );
    const stream = sent[Symbol.asyncIterator]();
    const first = (await stream.next()).value as Task;
    const followed: { kind: string; state?: string; final?: boolean; event: unknown }[] = [];
    const resubscribed = (async () => {
      for await (const event of clientB.resubscribeTask({ id: first.id })) {
        followed.push({
          kind: event.kind,
          state: event.kind === 'status-update' ? event.status.state : undefined,
          final: (event as TaskStatusUpdateEvent).final,
          event,
        });
      }
    })();
    // B follows A's run through NATS: wait for a live event, then kill A.
    await waitFor(async () => followed.some((e) => e.kind === 'artifact-update'), 10_000, 'a live event on B');
    process.kill(a.pid, 'SIGKILL');
    await a.exited;
    await stream.next().catch(() => undefined); // A's own stream is cut
    await resubscribed;
    const last = followed.at(-1)!;
    expect(last).toMatchObject({ kind: 'status-update', state: 'failed', final: true });
    const data = (last.event as TaskStatusUpdateEvent).status.message?.parts.find((p) => p.kind === 'data') as { data: Record<string, unknown> } | undefined;
    expect(data?.data).toMatchObject({ errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'replica_lost', replica: 'fo-a' });
  }, 30_000);
});
