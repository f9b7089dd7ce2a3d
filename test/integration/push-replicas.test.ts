// Push notifications survive a replica's death (docs/a2a-conformance.md, "Push notifications";
// D-90): replicas on one PostgreSQL database, each a process of its own, one killed with -9.
//   - a replica killed while it delivers a notification (the receiver never answered it): its
//     claim runs out and another replica delivers it; the receiver acknowledges it once, the
//     two attempts carrying the same notification id;
//   - a replica killed while it runs a task with a webhook: another replica fails the task
//     (replica_lost) and notifies that.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { EXAMPLE, a2aClientWith, sendParams, spawnRuntime, type RuntimeProcess } from './helpers/runtime.ts';
import { startReceiver, type Receiver } from './helpers/push-receiver.ts';
import { waitFor } from './helpers/playground-studio.ts';
import { dropSchema, ensurePostgres, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';
import { NOTIFICATION_ID_HEADER } from '../../src/main/runtime/push/deliver.ts';

const ID = NOTIFICATION_ID_HEADER.toLowerCase();

describe('push notifications across replicas on PostgreSQL', () => {
  const schema = newSchema('pushrep');
  const replicas = new Map<string, RuntimeProcess>();
  let rx: Receiver;
  let env: Record<string, string>;

  const spawn = async (id: string) => replicas.set(id, await spawnRuntime(EXAMPLE, { ...env, REPLICA_ID: id })).get(id)!;
  const kill = async (id: string) => {
    const r = replicas.get(id)!;
    process.kill(r.pid, 'SIGKILL');
    await r.exited;
    replicas.delete(id);
  };
  const outbox = (taskId: string) =>
    sql<{ status: string; attempts: number; claimed_by: string | null }>(
      `SELECT status, attempts, claimed_by FROM "${schema}".push_outbox WHERE task_id = $1`,
      [taskId],
    );

  beforeAll(async () => {
    await ensurePostgres();
    rx = await startReceiver();
    env = {
      MEMORY_BACKEND: 'postgres',
      POSTGRES_DSN: TEST_DSN,
      POSTGRES_SCHEMA: schema,
      TASK_LEASE_MS: '1500',
      AGENT_ID: 'push-replicas',
      PUSH_ALLOW_PRIVATE: '1',
      PUSH_TIMEOUT_MS: '1000',
      PUSH_POLL_MS: '100',
      PUSH_RETRY_BASE_MS: '100',
    };
    await Promise.all([spawn('pr-a'), spawn('pr-b')]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...replicas.values()].map((r) => r.close()));
    await rx?.close();
    await dropSchema(schema);
  });

  it('a replica killed while delivering: another delivers the notification, acknowledged once', async () => {
    rx.plan('/claimed', ['hang']);
    const client = a2aClientWith(replicas.get('pr-a')!.url);
    const res = (await client.sendMessage(
      sendParams('Tell me about unicorns', {}, { configuration: { pushNotificationConfig: { url: `${rx.base}/claimed` } } }),
    )) as {
      result: Task;
    };
    expect(res.result.status.state).toBe('completed');
    // The first attempt reaches the receiver, which never answers; kill the replica holding it.
    await rx.until((h) => h.path === '/claimed');
    const [claim] = await outbox(res.result.id);
    expect(claim).toMatchObject({ status: 'pending', attempts: 1 });
    const holder = claim.claimed_by!;
    const survivor = holder === 'pr-a' ? 'pr-b' : 'pr-a';
    await kill(holder);

    const hits = await rx.until((h) => h.path === '/claimed', 2);
    expect(hits[1].headers[ID]).toBe(hits[0].headers[ID]);
    expect(hits[1].body).toMatchObject({ id: res.result.id, status: { state: 'completed' } });
    await waitFor(async () => (await outbox(res.result.id))[0]?.status === 'delivered', 5_000, 'the notification recorded delivered');
    expect(await outbox(res.result.id)).toEqual([{ status: 'delivered', attempts: 2, claimed_by: survivor }]);
    await spawn(holder); // back to two replicas
  }, 60_000);

  it('a replica killed while running a task with a webhook: another fails the task and notifies it', async () => {
    const [runner, other] = [...replicas.keys()];
    const client = a2aClientWith(replicas.get(runner)!.url);
    const res = (await client.sendMessage(
      sendParams(
        'Where is my order ORD-23456?',
        { contextId: randomUUID() },
        {
          configuration: { blocking: false, pushNotificationConfig: { url: `${rx.base}/reaped`, token: 'tok' } },
          metadata: { scriptedDelayMs: 60_000 },
        },
      ),
    )) as { result: Task };
    await waitFor(
      async () => (await sql<{ state: string }>(`SELECT state FROM "${schema}".a2a_tasks WHERE task_id = $1`, [res.result.id]))[0]?.state === 'working',
      10_000,
      'the task working',
    );
    await kill(runner);
    const [hit] = await rx.until((h) => h.path === '/reaped', 1, 20_000);
    expect(hit.headers['x-a2a-notification-token']).toBe('tok');
    expect(hit.body).toMatchObject({ id: res.result.id, status: { state: 'failed' } });
    expect(JSON.stringify(hit.body.status.message)).toContain('replica_lost');
    await waitFor(async () => (await outbox(res.result.id))[0]?.status === 'delivered', 5_000, 'the notification recorded delivered');
    expect(await outbox(res.result.id)).toEqual([{ status: 'delivered', attempts: 1, claimed_by: other }]);
    expect(rx.hits.filter((h) => h.path === '/reaped')).toHaveLength(1);
  }, 60_000);
});
