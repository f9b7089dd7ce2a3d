// A2A 1.0 beside 0.3.0 on one port (D-86, D-88): the official @a2a-js/sdk 1.3 client with its
// default options (it reads the card, picks the 1.0 JSON-RPC interface and sends
// `A2A-Version: 1.0`) and over HTTP+JSON, while the 0.3 client on the same runtime sees no change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { ClientFactory, type Client } from 'a2a-sdk-1/client';
import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, SendMessageRequest, SubscribeToTaskRequest, TaskState, type Task } from 'a2a-sdk-1';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

// Requests as 1.0 JSON, read by the SDK's own parser.
const userMsg = (t: string) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: t }] });
const send = (json: Record<string, unknown>) => SendMessageRequest.fromJSON(json);

function asTask(r: unknown): Task {
  expect((r as Task).id).toBeTruthy();
  return r as Task;
}

async function rest(url: string, path: string, init: RequestInit = {}, version = '1.0') {
  const res = await fetch(`${url}v1${path}`, { ...init, headers: { 'content-type': 'application/json', 'a2a-version': version, ...(init.headers ?? {}) } });
  return { status: res.status, body: (await res.json()) as any };
}

describe('A2A 1.0 beside 0.3.0 on the support-desk example', () => {
  let rt: TestRuntime;
  let client: Client;
  beforeAll(async () => {
    rt = await startTestRuntime();
    client = await new ClientFactory().createFromUrl(rt.url);
  });
  afterAll(async () => rt?.close());

  it('gives a 1.0 client the 1.0 card and any other client the 0.3 card listing both versions', async () => {
    const v1: any = await (await fetch(`${rt.url}.well-known/agent-card.json`, { headers: { 'A2A-Version': '1.0' } })).json();
    expect(v1.protocolVersion).toBeUndefined();
    expect(v1.supportedInterfaces).toEqual([
      { url: rt.url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${rt.url}v1`, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
      { url: rt.url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    const v03: any = await (await fetch(`${rt.url}.well-known/agent-card.json`)).json();
    expect(v03).toMatchObject({ protocolVersion: '0.3.0', url: rt.url, preferredTransport: 'JSONRPC' });
    expect(v03.supportedInterfaces).toEqual(v1.supportedInterfaces);
    expect(client.protocolVersion).toBe('1.0');
  });

  it('sends, gets and lists through the 1.3 client with default options', async () => {
    const sent = asTask(await client.sendMessage(send({ message: userMsg('Where is my order ORD-12345?') })));
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent.artifacts[0]?.parts.some((p) => p.content?.$case === 'text')).toBe(true);
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id }));
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history.length).toBeGreaterThan(0);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId: sent.contextId }));
    expect(listed.tasks.map((t) => t.id)).toEqual([sent.id]);
    expect(listed.totalSize).toBe(1);
    expect(listed.nextPageToken).toBe('');
    // Artifacts only when asked for (spec 1.0, ListTasks).
    expect(listed.tasks[0]?.artifacts).toEqual([]);
    const withArtifacts = await client.listTasks(ListTasksRequest.fromJSON({ contextId: sent.contextId, includeArtifacts: true }));
    expect(withArtifacts.tasks[0]?.artifacts.length).toBeGreaterThan(0);
  });

  it('streams status and artifact updates to the final state', async () => {
    const events = [];
    for await (const e of client.sendMessageStream(send({ message: userMsg('I want a refund for ORD-12345') }))) events.push(e);
    const cases = events.map((e) => e.payload?.$case);
    expect(cases).toContain('artifactUpdate');
    const last = events.at(-1)?.payload;
    expect(last?.$case).toBe('statusUpdate');
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('cancels a running task and follows one with SubscribeToTask', async () => {
    const slow = { scriptedDelayMs: 400 };
    const running = asTask(
      await client.sendMessage(send({ message: userMsg('Where is ORD-12345?'), configuration: { returnImmediately: true }, metadata: slow })),
    );
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(running.status?.state);
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: running.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);

    const followed = asTask(
      await client.sendMessage(send({ message: userMsg('Where is ORD-12345?'), configuration: { returnImmediately: true }, metadata: slow })),
    );
    const events = [];
    for await (const e of client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: followed.id }))) events.push(e);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' ? last.value.status?.state : last?.$case === 'task' ? last.value.status?.state : undefined).toBe(
      TaskState.TASK_STATE_COMPLETED,
    );
  });

  it('serves the HTTP+JSON binding and refuses an unsupported version', async () => {
    const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Where is ORD-12345?' }] };
    const sent = await rest(rt.url, '/message:send', { method: 'POST', body: JSON.stringify({ message }) });
    expect(sent.status).toBe(200);
    expect(sent.body.task.status.state).toBe('TASK_STATE_COMPLETED');
    const got = await rest(rt.url, `/tasks/${sent.body.task.id}`);
    expect(got.body.id).toBe(sent.body.task.id);
    expect((await rest(rt.url, `/tasks/${randomUUID()}`)).status).toBe(404);
    expect((await rest(rt.url, '/message:send', { method: 'POST', body: JSON.stringify({ message }) }, '99.0')).status).toBe(400);
    const rpc = await fetch(rt.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '99.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
    });
    expect(((await rpc.json()) as any).error.code).toBe(-32009);
  });

  it('reads a task sent through 0.3 through 1.0, and a 1.0 task through the 0.3 client', async () => {
    const res: any = await rt.client.sendMessage(sendParams('Where is my order ORD-12345?'));
    const viaV1 = await client.getTask(GetTaskRequest.fromJSON({ id: res.result.id }));
    expect(viaV1.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(viaV1.artifacts.map((a) => a.artifactId)).toEqual(res.result.artifacts.map((a: any) => a.artifactId));
    const sent = asTask(await client.sendMessage(send({ message: userMsg('Where is ORD-12345?') })));
    const via03: any = await rt.client.getTask(GetTaskRequest.fromJSON({ id: sent.id }));
    expect(via03.result).toMatchObject({ kind: 'task', id: sent.id, status: { state: 'completed' } });
  });

  it('serves the 1.0 push notification methods: an unknown task is TaskNotFoundError (runtime-a2a-v1-push.test.ts)', async () => {
    const rpc = await fetch(rt.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTaskPushNotificationConfig', params: { taskId: 'x', id: 'y' } }),
    });
    expect(((await rpc.json()) as any).error.code).toBe(-32001);
  });
});

/** A 1.0 JSON-RPC call with a caller's key. */
async function rpc1(url: string, key: string | null, method: string, params: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'A2A-Version': '1.0', ...(key ? { 'x-api-key': key } : {}) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  // SubscribeToTask answers SSE: its first data line.
  const body = text.startsWith('data:') ? JSON.parse(text.split('\n')[0]!.slice(5)) : JSON.parse(text);
  return { status: res.status, body };
}

describe("A2A 1.0 with caller keys on PostgreSQL: every binding sees only the caller's own tasks", () => {
  const alice = newKey('alice');
  const bob = newKey('bob');
  const schema = newSchema('a2av1');
  let rt: TestRuntime;
  beforeAll(async () => {
    await ensurePostgres();
    rt = await startTestRuntime({
      env: {
        A2A_API_KEYS: [alice.entry, bob.entry].join(','),
        MEMORY_BACKEND: 'postgres',
        POSTGRES_DSN: TEST_DSN,
        POSTGRES_SCHEMA: schema,
        A2A_CORS_ORIGINS: 'https://app.example.com',
      },
    });
  });
  afterAll(async () => {
    await rt?.close();
    await dropSchema(schema);
  });

  it('refuses both 1.0 bindings without a credential, and lets a browser page ask with one', async () => {
    expect((await rpc1(rt.url, null, 'ListTasks', {})).status).toBe(401);
    expect((await rest(rt.url, '/tasks')).status).toBe(401);
    const preflight = await fetch(`${rt.url}v1/tasks`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'a2a-version, x-api-key' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('a2a-version');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');
  });

  it("lists, gets, cancels and subscribes only to the caller's tasks, whichever version made them", async () => {
    const mine = await rpc1(rt.url, alice.key, 'SendMessage', { message: userMsg('Where is ORD-12345?') });
    const aliceTask = mine.body.result.task.id as string;
    // A task alice made through 0.3 reads through 1.0 too.
    const via03 = await fetch(rt.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': alice.key },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'message/send', params: sendParams('Where is ORD-12345?') }),
    });
    const alice03 = ((await via03.json()) as any).result.id as string;
    const bobs = await rpc1(rt.url, bob.key, 'SendMessage', { message: userMsg('Where is ORD-54321?') });
    const bobTask = bobs.body.result.task.id as string;

    const aliceList = await rpc1(rt.url, alice.key, 'ListTasks', {});
    expect(aliceList.body.result.tasks.map((t: any) => t.id).sort()).toEqual([aliceTask, alice03].sort());
    expect(aliceList.body.result.totalSize).toBe(2);
    const bobList = await rest(rt.url, '/tasks', { headers: { 'x-api-key': bob.key } });
    expect(bobList.body.tasks.map((t: any) => t.id)).toEqual([bobTask]);
    // A page of one, then the next.
    const first = await rpc1(rt.url, alice.key, 'ListTasks', { pageSize: 1 });
    expect(first.body.result.tasks).toHaveLength(1);
    const second = await rpc1(rt.url, alice.key, 'ListTasks', { pageSize: 1, pageToken: first.body.result.nextPageToken });
    expect(second.body.result.tasks).toHaveLength(1);
    expect(second.body.result.nextPageToken).toBe('');
    expect((await rpc1(rt.url, alice.key, 'ListTasks', { pageSize: 500 })).body.error.code).toBe(-32602);

    // Another user's task reads as an unknown one on every method and binding.
    expect((await rpc1(rt.url, bob.key, 'GetTask', { id: aliceTask })).body.error.code).toBe(-32001);
    expect((await rpc1(rt.url, bob.key, 'CancelTask', { id: aliceTask })).body.error.code).toBe(-32001);
    expect((await rpc1(rt.url, bob.key, 'SubscribeToTask', { id: aliceTask })).body.error.code).toBe(-32001);
    expect((await rest(rt.url, `/tasks/${alice03}`, { headers: { 'x-api-key': bob.key } })).status).toBe(404);
    expect((await rpc1(rt.url, alice.key, 'GetTask', { id: alice03 })).body.result.status.state).toBe('TASK_STATE_COMPLETED');
  });
});
