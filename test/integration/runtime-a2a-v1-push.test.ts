// Push notifications on A2A 1.0 (D-104), driven by the official @a2a-js/sdk 1.3 client with its
// default options (1.0 JSON-RPC, from the card) and over HTTP+JSON, against a webhook receiver
// on loopback, on SQLite and PostgreSQL: create, get, list and delete a configuration, SendMessage's configuration, the
// notification in 1.0's shape (a 0.3 configuration on the same task still gets 0.3's), and
// another principal's task answered as an unknown one on both bindings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ClientFactory, type Client } from 'a2a-sdk-1/client';
import { SendMessageRequest, TaskPushNotificationConfig, type Task } from 'a2a-sdk-1';
import { TaskNotFoundError } from 'a2a-sdk-1/errors';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startReceiver, type Receiver } from './helpers/push-receiver.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

const alice = newKey('alice');
const bob = newKey('bob');
const PUSH_ENV = { PUSH_ALLOW_PRIVATE: '1', PUSH_RETRY_BASE_MS: '50', PUSH_RETRY_MAX_MS: '200', PUSH_POLL_MS: '50', PUSH_TIMEOUT_MS: '2000' };
const as = (key: string) => ({ serviceParameters: { 'x-api-key': key } });
const userMsg = (t: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: t }] });

async function post(url: string, key: string, body: unknown, version = '1.0') {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...(version ? { 'A2A-Version': version } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), body: (await res.json()) as any };
}

async function rest(url: string, key: string, path: string, init: RequestInit = {}) {
  const res = await fetch(`${url}v1${path}`, { ...init, headers: { 'content-type': 'application/json', 'a2a-version': '1.0', 'x-api-key': key } });
  const text = await res.text();
  return { status: res.status, type: res.headers.get('content-type'), body: text ? (JSON.parse(text) as any) : null };
}

describe.each([['sqlite'], ['postgres']] as const)('push notifications on A2A 1.0 on %s', (backend) => {
  let rt: TestRuntime;
  let rx: Receiver;
  let client: Client;
  const schema = newSchema('pushv1');
  beforeAll(async () => {
    const store: Record<string, string> =
      backend === 'postgres' ? (await ensurePostgres(), { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema }) : {};
    rx = await startReceiver();
    rt = await startTestRuntime({ env: { ...store, ...PUSH_ENV, A2A_API_KEYS: [alice.entry, bob.entry].join(',') } });
    client = await new ClientFactory().createFromUrl(rt.url);
  }, 60_000);
  afterAll(async () => {
    await rt?.close();
    await rx?.close();
    if (backend === 'postgres') await dropSchema(schema);
  });

  it('the 1.0 card announces them; set, get, list and delete through the 1.3 client, and each configuration is notified once in its own version', async () => {
    const card: any = await (await fetch(`${rt.url}.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    expect(card.capabilities.pushNotifications).toBe(true);
    expect(client.protocolVersion).toBe('1.0');

    const sent = (await client.sendMessage(
      SendMessageRequest.fromJSON({
        message: userMsg('Where is my order ORD-23456?'),
        configuration: { returnImmediately: true, taskPushNotificationConfig: { url: `${rx.base}/v1/first`, token: 'tok-first' } },
        metadata: { scriptedDelayMs: 400 },
      }),
      as(alice.key),
    )) as Task;
    expect(sent.id).toBeTruthy();

    const second = {
      id: 'second',
      taskId: sent.id,
      url: `${rx.base}/v1/second`,
      token: 'tok-second',
      authentication: { scheme: 'Bearer', credentials: 'cred-2' },
    };
    const made = await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON(second), as(alice.key));
    expect(TaskPushNotificationConfig.toJSON(made)).toEqual(second);
    const listed = await client.listTaskPushNotificationConfig({ tenant: '', taskId: sent.id, pageSize: 0, pageToken: '' }, as(alice.key));
    expect(listed.configs.map((c) => c.id).sort()).toEqual([sent.id, 'second'].sort());
    expect(listed.nextPageToken).toBe('');
    const first = await client.getTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: sent.id }, as(alice.key));
    expect(first).toMatchObject({ taskId: sent.id, url: `${rx.base}/v1/first`, token: 'tok-first' });
    // The same configuration over HTTP+JSON.
    const viaRest = await rest(rt.url, alice.key, `/tasks/${sent.id}/pushNotificationConfigs/second`);
    expect(viaRest.status).toBe(200);
    expect(viaRest.body).toEqual(second);
    // A 0.3 client's configuration on the same task.
    const set03 = await post(
      rt.url,
      alice.key,
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tasks/pushNotificationConfig/set',
        params: { taskId: sent.id, pushNotificationConfig: { id: 'old', url: `${rx.base}/v03/old` } },
      },
      '',
    );
    expect(set03.body.result.pushNotificationConfig).toEqual({ id: 'old', url: `${rx.base}/v03/old` });

    const [toFirst] = await rx.until((h) => h.path === '/v1/first');
    const [toSecond] = await rx.until((h) => h.path === '/v1/second');
    const [toOld] = await rx.until((h) => h.path === '/v03/old');
    for (const hit of [toFirst!, toSecond!]) {
      expect(hit.body.task).toMatchObject({ id: sent.id, contextId: sent.contextId, status: { state: 'TASK_STATE_COMPLETED' } });
      expect(hit.body.task.artifacts.length).toBeGreaterThan(0);
    }
    expect(toFirst!.headers['x-a2a-notification-token']).toBe('tok-first');
    expect(toSecond!.headers.authorization).toBe('Bearer cred-2');
    expect(toOld!.body).toMatchObject({ kind: 'task', id: sent.id, status: { state: 'completed' } });

    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: sent.id, id: 'second' }, as(alice.key));
    expect((await rest(rt.url, alice.key, `/tasks/${sent.id}/pushNotificationConfigs/old`, { method: 'DELETE' })).status).toBe(204);
    const left = await rest(rt.url, alice.key, `/tasks/${sent.id}/pushNotificationConfigs`);
    expect(left.body.configs.map((c: any) => c.id)).toEqual([sent.id]);
    // Once each: the state was saved once.
    expect(rx.hits.filter((h) => h.path.startsWith('/v1/') || h.path.startsWith('/v03/'))).toHaveLength(3);
  });

  it("answers another principal's task as an unknown one on every push method of both bindings", async () => {
    const mine = await post(rt.url, alice.key, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMsg('Where is ORD-12345?') } });
    const taskId = mine.body.result.task.id as string;
    await client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId, id: 'a', url: `${rx.base}/v1/a` }), as(alice.key));

    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId, id: 'a' }, as(bob.key))).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(
      client.createTaskPushNotificationConfig(TaskPushNotificationConfig.fromJSON({ taskId, id: 'b', url: `${rx.base}/v1/b` }), as(bob.key)),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    const rpc = (method: string, params: unknown) => post(rt.url, bob.key, { jsonrpc: '2.0', id: 2, method, params });
    expect((await rpc('ListTaskPushNotificationConfigs', { taskId })).body.error.code).toBe(-32001);
    expect((await rpc('DeleteTaskPushNotificationConfig', { taskId, id: 'a' })).body.error.code).toBe(-32001);
    expect((await rest(rt.url, bob.key, `/tasks/${taskId}/pushNotificationConfigs`)).status).toBe(404);
    expect((await rest(rt.url, bob.key, `/tasks/${taskId}/pushNotificationConfigs/a`, { method: 'DELETE' })).status).toBe(404);
    // Alice's configuration is still there.
    expect((await rest(rt.url, alice.key, `/tasks/${taskId}/pushNotificationConfigs/a`)).body).toMatchObject({ id: 'a', taskId });
  });

  it("refuses a bad configuration in each binding's error shape, naming the 1.0 field", async () => {
    const mine = await post(rt.url, alice.key, { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: userMsg('Where is ORD-12345?') } });
    const taskId = mine.body.result.task.id as string;
    const bad = await post(rt.url, alice.key, { jsonrpc: '2.0', id: 3, method: 'CreateTaskPushNotificationConfig', params: { taskId, url: 'ftp://x' } });
    expect(bad.body.error.code).toBe(-32602);
    expect(bad.body.error.message).toContain('params.url');
    const noId = await post(rt.url, alice.key, { jsonrpc: '2.0', id: 4, method: 'GetTaskPushNotificationConfig', params: { taskId } });
    expect(noId.body.error.code).toBe(-32602);
    const viaRest = await rest(rt.url, alice.key, `/tasks/${taskId}/pushNotificationConfigs`, { method: 'POST', body: JSON.stringify({ url: 'not a url' }) });
    expect(viaRest.status).toBe(400);
    expect(viaRest.type).toContain('application/json');
    expect(viaRest.body.error.message).toContain('params.url');
    const missing = await rest(rt.url, alice.key, `/tasks/${taskId}/pushNotificationConfigs/none`);
    expect(missing.status).toBe(400);
    // A body the SDK's parser cannot read (found by test/fuzz/a2a-v1.fuzz.test.ts): 400, not 500.
    const nullPart = await rest(rt.url, alice.key, '/message:send', { method: 'POST', body: JSON.stringify({ message: { ...userMsg('x'), parts: [null] } }) });
    expect(nullPart.status).toBe(400);
    expect(nullPart.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    const unknownTask = await rest(rt.url, alice.key, `/tasks/no-such-task/pushNotificationConfigs`);
    expect(unknownTask.status).toBe(404);
  });
});
