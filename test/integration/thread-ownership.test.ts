// Whose conversation is whose (docs/security.md), over real HTTP with the official A2A client
// and real API keys, on SQLite and on PostgreSQL (two replicas sharing one schema: a check on
// one replica holds on the other). alice starts a thread; bob can neither continue it nor read,
// cancel or follow its task (each answers exactly as for an unknown id); a trusted gateway acts
// for alice with metadata.userId; metadata.history only from a trusted principal.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { sendParams, startTestRuntime, tempDir, type TestRuntime } from './helpers/runtime.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

const alice = newKey('alice');
const bob = newKey('bob');
const gateway = newKey('gateway');
const operator = newKey('ops');
const AUTH = {
  A2A_API_KEYS: [alice.entry, bob.entry, gateway.entry].join(','),
  A2A_TRUSTED_PRINCIPALS: 'gateway',
  MANAGEMENT_API_KEYS: operator.entry,
};

/** The official client, sending `key` with every request. */
function clientOf(url: string, key: string): A2AClient {
  const fetchImpl: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), 'x-api-key': key } });
  const card = {
    name: 'x',
    description: 'x',
    url,
    version: '0',
    protocolVersion: '0.3.0',
    capabilities: { streaming: true },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };
  return new A2AClient(card, { fetchImpl });
}

function task(res: any): Task {
  if (res.error) throw new Error(`JSON-RPC error ${res.error.code}: ${res.error.message}`);
  return res.result as Task;
}

/** The error a stream (tasks/resubscribe, message/stream) ends with. */
async function streamError(events: AsyncGenerator<unknown>): Promise<string> {
  try {
    for await (const _ of events);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the stream ended without an error');
}

async function management(url: string, pathAndQuery: string, init: RequestInit = {}): Promise<any> {
  const res = await fetch(`${url}api/v1/${pathAndQuery}`, {
    ...init,
    headers: { authorization: `Bearer ${operator.key}`, 'content-type': 'application/json' },
  });
  return res.json();
}

interface Backend {
  name: string;
  /** The env of a runtime on this backend's (shared) store. */
  env(): Record<string, string>;
  /** How many runtimes share the store: PostgreSQL runs two replicas. */
  replicas: number;
  /** The SQLite data dir every runtime of the test shares. */
  dataDir?(): string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
}

function sqlite(): Backend {
  let dataDir = '';
  return {
    name: 'sqlite',
    replicas: 1,
    env: () => ({}),
    setup: async () => {
      dataDir = tempDir('ownership');
    },
    teardown: async () => undefined,
    dataDir: () => dataDir,
  };
}

function postgres(): Backend {
  let schema = '';
  return {
    name: 'postgres',
    replicas: 2,
    // A short task lease: a cancel asked on one replica reaches the run on the other quickly.
    env: () => ({ MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema, TASK_LEASE_MS: '1500' }),
    setup: async () => {
      await ensurePostgres();
      schema = newSchema('own');
    },
    teardown: () => dropSchema(schema),
  };
}

describe.each([sqlite(), postgres()])('thread ownership on $name', (backend) => {
  const runtimes: TestRuntime[] = [];
  /** Starts a runtime on the backend's store (the SQLite data dir, or the PostgreSQL schema). */
  const start = async (env: Record<string, string>) => {
    const rt = await startTestRuntime({ env: { ...backend.env(), ...env }, dataDir: backend.dataDir?.() });
    runtimes.push(rt);
    return rt;
  };
  /** Replica A serves alice, replica B (the same runtime on SQLite) serves everyone else. */
  let a: TestRuntime;
  let b: TestRuntime;
  let anonymousThread: { contextId: string; taskId: string };

  beforeAll(async () => {
    await backend.setup();
    // A thread made while caller authentication was off (the studio's child, local use).
    const open = await start({});
    const t = task(await open.client.sendMessage(sendParams('How do I reset my password?')));
    expect(t.status.state).toBe('completed');
    anonymousThread = { contextId: t.contextId, taskId: t.id };
    await open.close();
    runtimes.splice(0);
    a = await start(AUTH);
    b = backend.replicas > 1 ? await start(AUTH) : a;
  }, 60_000);
  afterAll(async () => {
    for (const rt of runtimes) await rt.close();
    await backend.teardown();
  });

  const as = (rt: TestRuntime, key: { key: string }) => clientOf(rt.url, key.key);

  it("refuses bob on alice's contextId whatever he sends, and leaves alice's thread as it was", async () => {
    const first = task(await as(a, alice).sendMessage(sendParams('I want a refund')));
    expect(first.status.state).toBe('input-required');
    const contextId = first.contextId;
    const before = (await management(a.url, `memory/threads/${contextId}/messages`)).data.messages;

    const refusals = [
      await as(b, bob).sendMessage(sendParams('The order id is ORD-666', { contextId })),
      await as(b, bob).sendMessage(sendParams('The order id is ORD-666', { contextId }, { metadata: { userId: 'alice' } })),
      await as(b, bob).sendMessage(sendParams('The order id is ORD-666', { contextId, taskId: first.id })),
    ] as any[];
    for (const r of refusals) {
      expect(r.result).toBeUndefined();
      expect(r.error).toEqual({
        code: -32602,
        message: 'Invalid params: params.message.contextId names a conversation this caller cannot continue',
        data: { field: 'params.message.contextId' },
      });
    }
    // message/stream is refused the same way, as the stream's error event.
    const stream = await streamError(as(b, bob).sendMessageStream(sendParams('hello', { contextId })));
    expect(stream).toContain('(Code: -32602)');
    // bob's own thread naming alice's task: that task is unknown to him.
    const own = (await as(b, bob).sendMessage(sendParams('hi', { contextId: randomUUID(), taskId: first.id }))) as any;
    expect(own.error).toMatchObject({ code: -32001, message: `Task not found: ${first.id}` });

    expect((await management(a.url, `memory/threads/${contextId}/messages`)).data.messages).toEqual(before);
    const waiting = task(await as(a, alice).getTask({ id: first.id }));
    expect(waiting.status.state).toBe('input-required');
    expect(waiting.history).toEqual(first.history);
    // alice continues on either replica: her thread is intact.
    const done = task(await as(b, alice).sendMessage(sendParams('The order id is ORD-12345', { contextId })));
    expect(done.status.state).toBe('completed');
    expect(done.id).toBe(first.id);
    const messages = (await management(a.url, `memory/threads/${contextId}/messages`)).data.messages as { role: string; content: string }[];
    expect(messages.filter((m) => m.role === 'human').map((m) => m.content)).toEqual(['I want a refund', 'The order id is ORD-12345']);
  });

  it("answers bob's tasks/get, tasks/cancel and tasks/resubscribe on alice's task exactly as for an unknown id", async () => {
    const mine = task(await as(a, alice).sendMessage(sendParams('How do I change my address?')));
    const unknown = randomUUID();
    // The JSON-RPC error objects (the responses' ids are the client's own counter).
    const same = (theirs: any, random: any) =>
      expect(JSON.stringify(theirs.error ?? theirs).replaceAll(mine.id, unknown)).toBe(JSON.stringify(random.error ?? random));
    for (const metadata of [undefined, { userId: 'alice' }]) {
      const bobClient = as(b, bob);
      same(await bobClient.getTask({ id: mine.id, metadata }), await bobClient.getTask({ id: unknown, metadata }));
      same(await bobClient.cancelTask({ id: mine.id, metadata }), await bobClient.cancelTask({ id: unknown, metadata }));
      same(await streamError(bobClient.resubscribeTask({ id: mine.id, metadata })), await streamError(bobClient.resubscribeTask({ id: unknown, metadata })));
    }
    expect(((await as(b, bob).getTask({ id: unknown })) as any).error.code).toBe(-32001);
    // alice herself reads it, and her cancel of a completed task is TaskNotCancelable, not unknown.
    expect(task(await as(b, alice).getTask({ id: mine.id })).status.state).toBe('completed');
    expect(((await as(b, alice).cancelTask({ id: mine.id })) as any).error.code).toBe(-32002);
  });

  // Only PostgreSQL runs replicas: on SQLite the case does not exist, so it is not registered.
  if (backend.replicas > 1)
    it("checks before a cancel or resubscribe is handed to the replica running alice's task", async () => {
      const stream = as(a, alice).sendMessageStream(sendParams('Where is my order ORD-23456?', {}, { metadata: { scriptedDelayMs: 300, scriptedChunks: 20 } }));
      let taskId = '';
      let asked: Promise<unknown[]> | null = null;
      const unknown = randomUUID();
      const states: string[] = [];
      for await (const event of stream) {
        if (event.kind === 'task') taskId = event.id;
        if (event.kind === 'status-update') states.push(event.status.state);
        if (event.kind === 'artifact-update' && taskId && !asked) {
          // Running on replica A: bob on B is answered as for an unknown id (not forwarded to A,
          // not told where it runs); then alice's own cancel on B reaches the run on A.
          asked = (async () => [
            await as(b, bob).cancelTask({ id: taskId }),
            await as(b, bob).cancelTask({ id: unknown }),
            await streamError(as(b, bob).resubscribeTask({ id: taskId })),
            await streamError(as(b, bob).resubscribeTask({ id: unknown })),
            task(await as(b, alice).cancelTask({ id: taskId })),
          ])();
        }
      }
      const [bobCancel, unknownCancel, bobFollow, unknownFollow, aliceCancel] = (await asked) as any[];
      expect(JSON.stringify(bobCancel.error).replaceAll(taskId, unknown)).toBe(JSON.stringify(unknownCancel.error));
      expect(bobCancel.error.code).toBe(-32001);
      expect(bobFollow.replaceAll(taskId, unknown)).toBe(unknownFollow);
      expect(aliceCancel.status.state).toBe('canceled');
      expect(states.at(-1)).toBe('canceled');
    });

  it("lets the trusted gateway act for alice (metadata.userId) with metadata.history; refuses bob's metadata.history", async () => {
    const history = [{ role: 'user', parts: [{ kind: 'text', text: 'earlier question' }] }];
    const first = task(await as(a, alice).sendMessage(sendParams('I want a refund')));
    const viaGateway = task(
      await as(b, gateway).sendMessage(sendParams('The order id is ORD-12345', { contextId: first.contextId }, { metadata: { userId: 'alice', history } })),
    );
    expect(viaGateway.status.state).toBe('completed');
    expect(task(await as(b, gateway).getTask({ id: first.id, metadata: { userId: 'alice' } })).status.state).toBe('completed');
    // Without naming alice the gateway acts as itself: not its thread.
    expect(((await as(b, gateway).getTask({ id: first.id })) as any).error.code).toBe(-32001);
    expect(((await as(b, gateway).sendMessage(sendParams('hi', { contextId: first.contextId }))) as any).error.code).toBe(-32602);

    const threadsBefore = (await management(a.url, 'memory/threads?user=bob')).data.threads;
    for (const params of [
      sendParams('hello', {}, { metadata: { history } }),
      sendParams('hello', { metadata: { history } }),
      sendParams('hello', { contextId: randomUUID() }, { metadata: { history, userId: 'gateway' } }),
    ]) {
      const r = (await as(b, bob).sendMessage(params)) as any;
      expect(r.error).toEqual({
        code: -32602,
        message: expect.stringMatching(/^Invalid params: metadata\.history is accepted only from a trusted principal/),
        data: expect.any(Object),
      });
    }
    expect((await management(a.url, 'memory/threads?user=bob')).data.threads).toEqual(threadsBefore);
  });

  it("labels an untrusted caller's turn with its own name, whatever metadata.userId it sends", async () => {
    const t = task(await as(a, bob).sendMessage(sendParams('How do I reset my password?', {}, { metadata: { userId: 'alice' } })));
    const events = a.traces.filter((e) => (e as Record<string, unknown>).task_id === t.id);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect((e as Record<string, unknown>).userId).toBe('bob');
  });

  it('keeps threads made while authentication was off out of reach of every authenticated principal', async () => {
    const { contextId, taskId } = anonymousThread;
    for (const key of [alice, bob, gateway]) {
      expect(((await as(b, key).sendMessage(sendParams('hello again', { contextId }))) as any).error.code).toBe(-32602);
      expect(((await as(b, key).getTask({ id: taskId })) as any).error).toMatchObject({ code: -32001, message: `Task not found: ${taskId}` });
    }
    // The operator still sees them, under the anonymous user ''.
    expect((await management(a.url, 'memory/threads?user=')).data.threads).toContain(contextId);
  });

  it("lists one user's threads (?user=), and a migration of the agent id keeps every thread's user", async () => {
    const mine = task(await as(a, alice).sendMessage(sendParams('How do I reset my password?')));
    const listed = await management(a.url, 'memory/threads?user=alice');
    expect(listed).toMatchObject({ success: true, data: { agent_id: 'test-agent', user: 'alice' } });
    expect(listed.data.threads).toContain(mine.contextId);
    expect((await management(a.url, 'memory/threads?user=bob')).data.threads).not.toContain(mine.contextId);
    const all = (await management(a.url, 'memory/threads')).data.threads;
    expect(all).toEqual(expect.arrayContaining([...listed.data.threads, anonymousThread.contextId]));
    const twice = await management(a.url, 'memory/threads?user=a&user=b');
    expect(twice).toMatchObject({ success: false, error: { code: 'INVALID_PARAM' } });

    // Migrate this agent's threads away and back (AGENT_ID stays test-agent for the runtime).
    expect((await management(a.url, 'memory/migrate-agent-id', { method: 'POST', body: JSON.stringify({ old_id: 'test-agent', new_id: 'v2' }) })).success).toBe(
      true,
    );
    expect((await management(a.url, 'memory/migrate-agent-id', { method: 'POST', body: JSON.stringify({ old_id: 'v2', new_id: 'test-agent' }) })).success).toBe(
      true,
    );
    expect((await management(a.url, 'memory/threads?user=alice')).data.threads).toEqual(listed.data.threads);
    expect(task(await as(a, alice).sendMessage(sendParams('How do I change my address?', { contextId: mine.contextId }))).status.state).toBe('completed');
    expect(((await as(a, bob).sendMessage(sendParams('hi', { contextId: mine.contextId }))) as any).error.code).toBe(-32602);
  });
});
