// Push notifications on A2A 0.3.0 (docs/a2a-conformance.md, "Push notifications"; D-89, D-90),
// driven by the official @a2a-js/sdk 0.3 client over real HTTP against a webhook receiver on
// loopback, on SQLite and on PostgreSQL: configurations per task and per principal, the
// notification with its token and authentication, retries with back-off, and callback URLs
// refused for private targets (on what a name resolves to) unless PUSH_ALLOW_PRIVATE is on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import type { AgentCard, Task, TaskIdParams } from '@a2a-js/sdk';
import { sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startReceiver, type Receiver } from './helpers/push-receiver.ts';
import { waitFor } from './helpers/playground-studio.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { deliverOnce, NOTIFICATION_ID_HEADER } from '../../src/main/runtime/push/deliver.ts';
import type { PushStore } from '../../src/main/runtime/store/push-store.ts';

const alice = newKey('alice');
const bob = newKey('bob');
const PUSH_ENV = { PUSH_ALLOW_PRIVATE: '1', PUSH_RETRY_BASE_MS: '50', PUSH_RETRY_MAX_MS: '200', PUSH_POLL_MS: '50', PUSH_TIMEOUT_MS: '2000' };

/** The official client on the runtime's real card, sending `key` as the caller's credential. */
async function clientAs(url: string, key?: string): Promise<A2AClient> {
  const card = (await (await fetch(`${url}.well-known/agent-card.json`)).json()) as AgentCard;
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string> | undefined), ...(key ? { authorization: `Bearer ${key}` } : {}) } });
  return new A2AClient({ ...card, url }, { fetchImpl });
}

function ok<T>(res: any): T {
  if (res.error) throw new Error(`JSON-RPC error ${res.error.code}: ${res.error.message}`);
  return res.result as T;
}

const outboxOf = (rt: TestRuntime, taskId: string) => (rt.runtime.context.store as unknown as { pushStore(): PushStore }).pushStore().outbox(taskId);

describe.each([['sqlite'], ['postgres']] as const)('push notifications on %s', (backend) => {
  let rt: TestRuntime;
  let rx: Receiver;
  let ac: A2AClient;
  let bc: A2AClient;
  const schema = newSchema('push');

  beforeAll(async () => {
    const store: Record<string, string> =
      backend === 'postgres' ? (await ensurePostgres(), { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema }) : {};
    rx = await startReceiver();
    rt = await startTestRuntime({ env: { ...store, ...PUSH_ENV, A2A_API_KEYS: [alice.entry, bob.entry].join(',') } });
    [ac, bc] = await Promise.all([clientAs(rt.url, alice.key), clientAs(rt.url, bob.key)]);
  }, 60_000);

  afterAll(async () => {
    await rt?.close();
    await rx?.close();
    if (backend === 'postgres') await dropSchema(schema);
  });

  it('the card announces push notifications; a long task notifies each configuration once at its end, with its token and authentication', async () => {
    expect(((await ac.getAgentCard()) as AgentCard).capabilities.pushNotifications).toBe(true);
    const sent = ok<Task>(
      await ac.sendMessage(
        sendParams(
          'Where is my order ORD-23456?',
          {},
          {
            configuration: { blocking: false, pushNotificationConfig: { url: `${rx.base}/${backend}/first`, token: 'tok-first' } },
            metadata: { scriptedDelayMs: 400 },
          },
        ),
      ),
    );
    const second = { id: 'second', url: `${rx.base}/${backend}/second`, token: 'tok-second', authentication: { schemes: ['Bearer'], credentials: 'cred-2' } };
    expect(ok(await ac.setTaskPushNotificationConfig({ taskId: sent.id, pushNotificationConfig: second }))).toEqual({
      taskId: sent.id,
      pushNotificationConfig: second,
    });
    const listed = ok<{ pushNotificationConfig: { id: string } }[]>(await ac.listTaskPushNotificationConfig({ id: sent.id }));
    expect(listed.map((c) => c.pushNotificationConfig.id).sort()).toEqual([sent.id, 'second'].sort());
    // Without a config id, get answers the configuration whose id is the task's (the send's).
    expect(ok(await ac.getTaskPushNotificationConfig({ id: sent.id }))).toEqual({
      taskId: sent.id,
      pushNotificationConfig: { id: sent.id, url: `${rx.base}/${backend}/first`, token: 'tok-first' },
    });
    expect(ok<any>(await ac.getTaskPushNotificationConfig({ id: sent.id, pushNotificationConfigId: 'second' } as TaskIdParams)).pushNotificationConfig).toEqual(
      second,
    );

    const [first] = await rx.until((h) => h.path === `/${backend}/first`);
    expect(first.headers['x-a2a-notification-token']).toBe('tok-first');
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.body).toMatchObject({ kind: 'task', id: sent.id, contextId: sent.contextId, status: { state: 'completed' } });
    expect(first.body.artifacts.length).toBeGreaterThan(0);
    const [other] = await rx.until((h) => h.path === `/${backend}/second`);
    expect(other.headers).toMatchObject({ 'x-a2a-notification-token': 'tok-second', authorization: 'Bearer cred-2' });
    expect(other.body).toEqual(first.body);
    // The notification is the stored task.
    expect(ok<Task>(await ac.getTask({ id: sent.id, historyLength: 100 })).status).toEqual(first.body.status);

    await ac.deleteTaskPushNotificationConfig({ id: sent.id, pushNotificationConfigId: 'second' });
    expect(ok<unknown[]>(await ac.listTaskPushNotificationConfig({ id: sent.id }))).toHaveLength(1);
    expect(await outboxOf(rt, sent.id)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ configId: sent.id, status: 'delivered', attempts: 1 }),
        expect.objectContaining({ configId: 'second', status: 'delivered', attempts: 1 }),
      ]),
    );
  }, 30_000);

  it("another principal can neither read nor change a task's webhooks: its task is not found (-32001)", async () => {
    const t = ok<Task>(
      await ac.sendMessage(sendParams('Tell me about unicorns', {}, { configuration: { pushNotificationConfig: { url: `${rx.base}/${backend}/alice` } } })),
    );
    const config = { url: `${rx.base}/${backend}/bob` };
    const answers = [
      await bc.setTaskPushNotificationConfig({ taskId: t.id, pushNotificationConfig: config }),
      await bc.getTaskPushNotificationConfig({ id: t.id }),
      await bc.listTaskPushNotificationConfig({ id: t.id }),
      await bc.deleteTaskPushNotificationConfig({ id: t.id, pushNotificationConfigId: t.id }),
    ];
    for (const a of answers) expect((a as any).error).toMatchObject({ code: -32001 });
    expect(ok<unknown[]>(await ac.listTaskPushNotificationConfig({ id: t.id }))).toHaveLength(1);
    expect(((await ac.getTaskPushNotificationConfig({ id: 'no-such-task' })) as any).error.code).toBe(-32001);
  });

  it('input-required notifies, and so does the end of the task once continued', async () => {
    const path = `/${backend}/refund`;
    const first = ok<Task>(
      await ac.sendMessage(sendParams('I want a refund', {}, { configuration: { pushNotificationConfig: { url: `${rx.base}${path}`, token: 't' } } })),
    );
    expect(first.status.state).toBe('input-required');
    const [waiting] = await rx.until((h) => h.path === path);
    expect(waiting.body).toMatchObject({ id: first.id, status: { state: 'input-required' } });
    const done = ok<Task>(await ac.sendMessage(sendParams('The order id is ORD-12345', { contextId: first.contextId, taskId: first.id })));
    expect(done.status.state).toBe('completed');
    const hits = await rx.until((h) => h.path === path, 2);
    expect(hits.map((h) => h.body.status.state)).toEqual(['input-required', 'completed']);
    expect(hits[0].headers[NOTIFICATION_ID_HEADER.toLowerCase()]).not.toBe(hits[1].headers[NOTIFICATION_ID_HEADER.toLowerCase()]);
  });

  it('message/stream takes a configuration too, and continuing a waiting task with a new one notifies it only of what follows', async () => {
    const path = `/${backend}/stream`;
    const events = [];
    for await (const e of ac.sendMessageStream(sendParams('I want a refund', {}, { configuration: { pushNotificationConfig: { url: `${rx.base}${path}` } } })))
      events.push(e);
    const waiting = events.at(-1) as { taskId: string; contextId: string; status: { state: string } };
    expect(waiting.status.state).toBe('input-required');
    await rx.until((h) => h.path === path && h.body.status.state === 'input-required');
    const later = `/${backend}/later`;
    const done = ok<Task>(
      await ac.sendMessage(
        sendParams(
          'The order id is ORD-12345',
          { contextId: waiting.contextId, taskId: waiting.taskId },
          { configuration: { pushNotificationConfig: { id: 'later', url: `${rx.base}${later}` } } },
        ),
      ),
    );
    expect(done.status.state).toBe('completed');
    const [both] = await Promise.all([rx.until((h) => h.path === later), rx.until((h) => h.path === path, 2)]);
    expect(both.map((h) => h.body.status.state)).toEqual(['completed']);
    expect(rx.hits.filter((h) => h.path === later)).toHaveLength(1);
  });

  it('a receiver that fails is tried again with back-off until it answers; one that refuses (4xx) is not', async () => {
    rx.plan(`/${backend}/flaky`, [503, 500]);
    rx.plan(`/${backend}/gone`, [404]);
    const flaky = ok<Task>(
      await ac.sendMessage(sendParams('Tell me about unicorns', {}, { configuration: { pushNotificationConfig: { url: `${rx.base}/${backend}/flaky` } } })),
    );
    const gone = ok<Task>(
      await ac.sendMessage(sendParams('Tell me about unicorns', {}, { configuration: { pushNotificationConfig: { url: `${rx.base}/${backend}/gone` } } })),
    );
    const attempts = await rx.until((h) => h.path === `/${backend}/flaky`, 3);
    expect(new Set(attempts.map((h) => h.headers[NOTIFICATION_ID_HEADER.toLowerCase()])).size).toBe(1);
    expect(attempts.every((h) => h.body.id === flaky.id && h.body.status.state === 'completed')).toBe(true);
    await waitFor(async () => (await outboxOf(rt, flaky.id))[0]?.status === 'delivered', 5_000, 'the flaky notification delivered');
    expect(await outboxOf(rt, flaky.id)).toEqual([expect.objectContaining({ status: 'delivered', attempts: 3, lastError: 'HTTP 500' })]);
    await waitFor(async () => (await outboxOf(rt, gone.id))[0]?.status === 'failed', 5_000, 'the refused notification given up');
    expect(await outboxOf(rt, gone.id)).toEqual([expect.objectContaining({ status: 'failed', attempts: 1, lastError: 'HTTP 404' })]);
    expect(rx.hits.filter((h) => h.path === `/${backend}/gone`)).toHaveLength(1);
    // A receiver that never answers: the attempt ends at PUSH_TIMEOUT_MS and is tried again.
    rx.plan(`/${backend}/slow`, ['hang']);
    const slow = ok<Task>(
      await ac.sendMessage(sendParams('Tell me about unicorns', {}, { configuration: { pushNotificationConfig: { url: `${rx.base}/${backend}/slow` } } })),
    );
    await rx.until((h) => h.path === `/${backend}/slow`, 2);
    await waitFor(async () => (await outboxOf(rt, slow.id))[0]?.status === 'delivered', 5_000, 'the slow notification delivered');
    expect(await outboxOf(rt, slow.id)).toEqual([expect.objectContaining({ attempts: 2, lastError: 'no answer within 2000 ms' })]);
    const metrics = await (await fetch(`${rt.url}metrics`)).text();
    const count = (outcome: string) =>
      Number(new RegExp(`^agent_runtime_push_notification_attempts_total\\{outcome="${outcome}"\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    expect(count('retried')).toBeGreaterThanOrEqual(2);
    expect(count('failed')).toBeGreaterThanOrEqual(1);
    expect(count('delivered')).toBeGreaterThanOrEqual(1);
  });
});

describe('push callback URLs without PUSH_ALLOW_PRIVATE', () => {
  let rt: TestRuntime;
  let rx: Receiver;
  let client: A2AClient;
  let taskId: string;

  beforeAll(async () => {
    rx = await startReceiver();
    rt = await startTestRuntime({ env: { PUSH_POLL_MS: '50' } });
    client = await clientAs(rt.url);
    taskId = ok<Task>(await client.sendMessage(sendParams('Tell me about unicorns'))).id;
  }, 60_000);

  afterAll(async () => {
    await rt?.close();
    await rx?.close();
  });

  const setError = async (pushNotificationConfig: unknown, id = taskId) =>
    ((await client.setTaskPushNotificationConfig({ taskId: id, pushNotificationConfig } as never)) as any).error;

  it('refuses loopback, mapped, link-local and private targets, also behind a DNS name (localhost), with -32602 naming the field', async () => {
    for (const url of [
      `http://127.0.0.1:${rx.port}/hook`,
      `http://localhost:${rx.port}/hook`,
      `http://[::1]:${rx.port}/hook`,
      `http://[::ffff:127.0.0.1]:${rx.port}/hook`,
      'http://169.254.169.254/latest/meta-data',
      'http://10.0.0.8/hook',
      'http://192.168.1.20/hook',
    ]) {
      const error = await setError({ url });
      expect(error, url).toMatchObject({ code: -32602, data: { field: 'params.pushNotificationConfig.url' } });
    }
    const sent = (await client.sendMessage(
      sendParams('Tell me about unicorns', {}, { configuration: { pushNotificationConfig: { url: `http://localhost:${rx.port}/hook` } } }),
    )) as any;
    expect(sent.error).toMatchObject({ code: -32602, data: { field: 'params.configuration.pushNotificationConfig.url' } });
    expect(ok<unknown[]>(await client.listTaskPushNotificationConfig({ id: taskId }))).toEqual([]);
    expect(rx.hits).toEqual([]);
    // A name that does not resolve now is taken: each delivery resolves and checks it again.
    const later = { id: 'later', url: 'https://hooks.push-test.invalid/hook' };
    expect(ok(await client.setTaskPushNotificationConfig({ taskId, pushNotificationConfig: later }))).toEqual({ taskId, pushNotificationConfig: later });
    await client.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: 'later' });
  });

  it('refuses bad input with -32602 naming the field, and an unknown task with -32001', async () => {
    expect(await setError({ url: 'ftp://example.com/hook' })).toMatchObject({ code: -32602, data: { field: 'params.pushNotificationConfig.url' } });
    expect(await setError({ token: 'x' })).toMatchObject({ code: -32602, data: { field: 'params.pushNotificationConfig.url' } });
    expect(await setError('https://example.com/')).toMatchObject({ code: -32602, data: { field: 'params.pushNotificationConfig' } });
    expect(await setError({ url: 'https://example.com/', authentication: { schemes: ['Digest'], credentials: 'x' } })).toMatchObject({
      code: -32602,
      data: { field: 'params.pushNotificationConfig.authentication.schemes' },
    });
    expect(await setError({ url: 'https://example.com/' }, '')).toMatchObject({ code: -32602, data: { field: 'params.taskId' } });
    expect(await setError({ url: 'https://example.com/' }, 'no-such-task')).toMatchObject({ code: -32001 });
    expect(((await client.getTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: 'none' } as TaskIdParams)) as any).error).toMatchObject({
      code: -32602,
      data: { field: 'params.pushNotificationConfigId' },
    });
    // The runtime still answers.
    expect(ok<Task>(await client.getTask({ id: taskId })).id).toBe(taskId);
  });

  it('checks the resolved address again at delivery: a name that resolves to loopback is never reached', async () => {
    const row = { id: 1, taskId, configId: taskId, config: { id: taskId, url: `http://localhost:${rx.port}/late` }, body: '{}', attempts: 1 };
    expect(await deliverOnce(row, { allowPrivate: false, timeoutMs: 2000 })).toMatchObject({ kind: 'refused', error: expect.stringMatching(/loopback/) });
    expect(rx.hits).toEqual([]);
    // With the setting the same row is delivered (the check, not the receiver, refused it).
    expect(await deliverOnce(row, { allowPrivate: true, timeoutMs: 2000 })).toEqual({ kind: 'delivered' });
    expect(rx.hits.map((h) => h.path)).toEqual(['/late']);
  });
});
