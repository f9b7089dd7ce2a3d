// Two runtime processes of one agent on one PostgreSQL database behave as one runtime for
// everything stored (docs/deployment.md): a conversation alternates between them, tasks/get and a
// resume work across, a cancel asked on one reaches the run on the other, resubscribe on one
// follows the other's task, and a task whose replica is killed with -9 ends `failed`
// (UPSTREAM_UNAVAILABLE, replica_lost) within the lease, on the replica that is left.
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { EXAMPLE, copyExample, sendParams, spawnRuntime, type RuntimeProcess } from './helpers/runtime.ts';
import { startNats, type TestNats } from './helpers/nats.ts';
import { waitFor } from './helpers/playground-studio.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

const LEASE_MS = 1500;

async function management(base: string, p: string): Promise<any> {
  return ((await (await fetch(new URL(p.replace(/^\//, ''), base))).json()) as { data: any }).data;
}

describe('two replicas on one PostgreSQL database', () => {
  const schema = newSchema('replicas');
  let a: RuntimeProcess;
  let b: RuntimeProcess;
  let ca: A2AClient;
  let cb: A2AClient;
  const env = { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema, TASK_LEASE_MS: String(LEASE_MS), AGENT_ID: 'replicated' };

  beforeAll(async () => {
    await ensurePostgres();
    [a, b] = await Promise.all([spawnRuntime(EXAMPLE, { ...env, REPLICA_ID: 'replica-a' }), spawnRuntime(EXAMPLE, { ...env, REPLICA_ID: 'replica-b' })]);
    ca = await A2AClient.fromCardUrl(`${a.url}.well-known/agent-card.json`);
    cb = await A2AClient.fromCardUrl(`${b.url}.well-known/agent-card.json`);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await dropSchema(schema);
  });

  it('both start together on a fresh schema (migrations applied once) and report the postgres store', async () => {
    for (const r of [a, b]) expect(await (await fetch(`${r.url}healthz`)).json()).toMatchObject({ status: 'ok', store: 'postgres' });
    expect((await management(a.url, '/api/v1/memory/config')).backend).toBe('postgres');
    // The password never shows (trust auth here has none; the redaction itself is unit-tested).
    expect((await management(b.url, '/api/v1/memory/config')).postgres_dsn).toBe(TEST_DSN);
  });

  it('continues one conversation on either replica, and finds a task created on the other', async () => {
    const contextId = randomUUID();
    const first = (await ca.sendMessage(sendParams('Where is my order ORD-23456?', { contextId }))) as { result: Task };
    expect(first.result.status.state).toBe('completed');
    const second = (await cb.sendMessage(sendParams('And can I get a refund for ORD-12345?', { contextId }))) as { result: Task };
    expect(second.result.status.state).toBe('completed');
    const third = (await ca.sendMessage(sendParams('Thanks!', { contextId }))) as { result: Task };
    expect(third.result.status.state).toBe('completed');
    // One thread, all six messages, whichever replica is asked.
    for (const r of [a, b]) {
      const messages = (await management(r.url, `/api/v1/memory/threads/${contextId}/messages`)).messages as { role: string; content: string }[];
      expect(messages.map((m) => m.role)).toEqual(['human', 'ai', 'human', 'ai', 'human', 'ai']);
      expect(messages[2].content).toBe('And can I get a refund for ORD-12345?');
    }
    const found = (await cb.getTask({ id: first.result.id })) as { result: Task };
    expect(found.result).toMatchObject({ id: first.result.id, status: { state: 'completed' } });
  });

  it('resumes on one replica a task that asked for input on the other', async () => {
    const contextId = randomUUID();
    const asked = (await ca.sendMessage(sendParams('I want a refund', { contextId }))) as { result: Task };
    expect(asked.result.status.state, JSON.stringify(asked.result.status)).toBe('input-required');
    const answered = (await cb.sendMessage(sendParams('ORD-12345', { contextId, taskId: asked.result.id }))) as { result: Task };
    expect(answered.result).toMatchObject({ id: asked.result.id, status: { state: 'completed' } });
    expect(JSON.stringify(answered.result.artifacts)).toContain('ORD-12345');
  });

  it('a cancel asked on one replica stops the run on the other', async () => {
    const contextId = randomUUID();
    const stream = ca.sendMessageStream(sendParams('Where is my order ORD-23456?', { contextId }, { metadata: { scriptedDelayMs: 400, scriptedChunks: 20 } }));
    let taskId = '';
    const states: string[] = [];
    let cancelAsked: Promise<unknown> | null = null;
    const consumed = (async () => {
      for await (const event of stream) {
        if (event.kind === 'task') taskId = event.id;
        if (event.kind === 'status-update') {
          taskId = event.taskId;
          states.push(event.status.state);
        }
        if (event.kind === 'artifact-update' && taskId && !cancelAsked) cancelAsked = cb.cancelTask({ id: taskId });
      }
    })();
    await consumed;
    const canceled = (await cancelAsked) as unknown as { result?: Task; error?: unknown };
    expect(canceled.error).toBeUndefined();
    expect(canceled.result?.status.state).toBe('canceled');
    expect(states.at(-1)).toBe('canceled');
  });

  it('resubscribe on another replica follows the task from the shared row to its end', async () => {
    const stream = ca.sendMessageStream(
      sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, { metadata: { scriptedDelayMs: 200, scriptedChunks: 10 } }),
    );
    const it = stream[Symbol.asyncIterator]();
    const firstEvent = (await it.next()).value as Task;
    const followed: string[] = [];
    for await (const event of cb.resubscribeTask({ id: firstEvent.id })) {
      followed.push(event.kind === 'status-update' ? `status:${event.status.state}` : event.kind);
    }
    for (let e = await it.next(); !e.done; e = await it.next());
    expect(followed[0]).toBe('task');
    expect(followed).toContain('artifact-update');
    expect(followed.at(-1)).toBe('status:completed');
  });

  it('a task whose replica is killed with -9 ends failed (replica_lost) on the replica that is left, within the lease', async () => {
    const stream = ca.sendMessageStream(
      sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, { metadata: { scriptedDelayMs: 1000, scriptedChunks: 30 } }),
    );
    const it = stream[Symbol.asyncIterator]();
    let taskId = '';
    for (let e = await it.next(); !e.done; e = await it.next()) {
      const ev = e.value as { kind: string; id?: string; taskId?: string };
      taskId = ev.taskId ?? ev.id ?? taskId;
      if (ev.kind === 'artifact-update') break;
    }
    const killedAt = Date.now();
    process.kill(a.pid, 'SIGKILL');
    await a.exited;
    let task: Task | undefined;
    for (;;) {
      task = ((await cb.getTask({ id: taskId })) as { result: Task }).result;
      if (task.status.state !== 'working' && task.status.state !== 'submitted') break;
      expect(Date.now() - killedAt).toBeLessThan(LEASE_MS * 4);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(task.status.state).toBe('failed');
    const data = task.status.message?.parts.find((p) => p.kind === 'data') as { data: Record<string, unknown> } | undefined;
    expect(data?.data).toMatchObject({ errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'replica_lost', replica: 'replica-a' });
  }, 30_000);
});

describe('two replicas with cluster control on NATS', () => {
  const schema = newSchema('control');
  let nats: TestNats;
  let a: RuntimeProcess;
  let b: RuntimeProcess;
  let ca: A2AClient;
  let cb: A2AClient;
  const project = copyExample('cluster-control');

  beforeAll(async () => {
    await ensurePostgres();
    nats = await startNats();
    // A lease this long means the task row's cancel flag could not act within the test:
    // what cancels across replicas here is the NATS notification.
    const env = {
      MEMORY_BACKEND: 'postgres',
      POSTGRES_DSN: TEST_DSN,
      POSTGRES_SCHEMA: schema,
      TASK_LEASE_MS: '600000',
      AGENT_ID: 'clustered',
      CLUSTER_CONTROL: 'nats',
      CLUSTER_CONTROL_SECRET: randomBytes(32).toString('base64'),
      NATS_URL: nats.url,
      INTERNAL_RUNTIME_CONTROL_ENABLED: 'true',
    };
    [a, b] = await Promise.all([spawnRuntime(project, { ...env, REPLICA_ID: 'ctl-a' }), spawnRuntime(project, { ...env, REPLICA_ID: 'ctl-b' })]);
    ca = await A2AClient.fromCardUrl(`${a.url}.well-known/agent-card.json`);
    cb = await A2AClient.fromCardUrl(`${b.url}.well-known/agent-card.json`);
    for (const r of [a, b])
      await waitFor(async () => (await management(r.url, '/api/v1/status')).cluster_control?.state === 'subscribed', 10_000, 'cluster control to subscribe');
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await nats?.stop();
    await dropSchema(schema);
  });

  it('a cancel on one replica reaches the run on the other through NATS', async () => {
    const stream = ca.sendMessageStream(
      sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, { metadata: { scriptedDelayMs: 400, scriptedChunks: 20 } }),
    );
    let cancelAsked: Promise<unknown> | null = null;
    const states: string[] = [];
    for await (const event of stream) {
      if (event.kind === 'status-update') states.push(event.status.state);
      if (event.kind === 'artifact-update' && !cancelAsked) cancelAsked = cb.cancelTask({ id: event.taskId });
    }
    const canceled = (await cancelAsked) as unknown as { result?: Task; error?: unknown };
    expect(canceled.error).toBeUndefined();
    expect(canceled.result?.status.state).toBe('canceled');
    expect(states.at(-1)).toBe('canceled');
  });

  it('resubscribe on one replica follows a task running on the other to its end', async () => {
    const stream = ca.sendMessageStream(
      sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, { metadata: { scriptedDelayMs: 150, scriptedChunks: 12 } }),
    );
    const it = stream[Symbol.asyncIterator]();
    const first = (await it.next()).value as Task;
    const followed: string[] = [];
    for await (const event of cb.resubscribeTask({ id: first.id })) {
      followed.push(event.kind === 'status-update' ? `status:${event.status.state}` : event.kind);
    }
    for (let e = await it.next(); !e.done; e = await it.next());
    expect(followed[0]).toBe('task');
    expect(followed).toContain('artifact-update');
    expect(followed.at(-1)).toBe('status:completed');
  });

  it('card URL, memory settings and a registry reload made on one replica apply to the other', async () => {
    const patch = (base: string, p: string, body: unknown) =>
      fetch(new URL(p, base), { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await patch(a.url, 'api/v1/card/url', { url: 'https://agents.example.com/clustered' })).status).toBe(200);
    expect((await patch(b.url, 'api/v1/memory/config', { window_size: 7 })).status).toBe(200);
    fs.appendFileSync(path.join(project, 'prompts/system.md'), '\nBe brief.\n');
    const reload = await fetch(new URL('api/v1/registry/reload', a.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(((await reload.json()) as { data: { generation: number } }).data.generation).toBe(2);
    for (let i = 0; ; i++) {
      const card = (await (await fetch(`${b.url}.well-known/agent-card.json`)).json()) as { url: string };
      const memory = await management(a.url, '/api/v1/memory/config');
      const meta = await management(b.url, '/api/v1/registry/metadata');
      if (card.url === 'https://agents.example.com/clustered' && memory.window_size === 7 && meta.generation === 2) break;
      if (i > 200) throw new Error(`not applied everywhere: card ${card.url}, window ${memory.window_size}, generation ${meta.generation}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  });
});
