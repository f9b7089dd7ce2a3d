// Nothing acknowledged is lost when the store fails (docs/deployment.md, "When the store is
// unreachable"; D-50). Under load, the store goes away (PostgreSQL: a TCP proxy the test
// controls cuts every connection and refuses new ones; SQLite: another connection holds the
// write lock, so writes fail with SQLITE_BUSY) and comes back:
//   - every turn answered with success (a blocking answer, a non-blocking task, a stream's
//     task event) is found by tasks/get afterwards, and ends either as answered or `failed`
//     with errorReason `store_unavailable`; one that ended `completed` is in its thread; a
//     blocking send answers only a final state; nothing else claims success;
//   - while the store is away, A2A answers the JSON-RPC error STORE_UNAVAILABLE_RPC with
//     errorCode UPSTREAM_UNAVAILABLE, and the management API 503 STORE_UNAVAILABLE in the
//     envelope; no answer names the database's address;
//   - /healthz and /readyz answer 503 while it is away and 200 once it is back, without a
//     restart, and new turns work;
//   - no promise rejection goes unhandled.
// And the PostgreSQL task store on its own while the database is away: a task written settled
// here reads back (the SDK reads a resumed task outside any handler), and closing resolves.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import path from 'node:path';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { sendParams, startTestRuntime, tempDir, type TestRuntime } from './helpers/runtime.ts';
import { waitFor } from './helpers/playground-studio.ts';
import { dropSchema, ensurePostgres, newSchema } from './helpers/postgres.ts';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.ts';
import { openPostgresStore } from '../../src/main/runtime/store/postgres/store.ts';
import { StoreGuard } from '../../src/main/runtime/store/guard.ts';
import { StoreUnavailableError } from '../../src/main/runtime/store/unavailable.ts';
import { SettlingTaskStore } from '../../src/main/runtime/a2a/settling.ts';

const STORE_UNAVAILABLE_RPC = -32021;
const FINAL = ['completed', 'failed', 'canceled', 'rejected', 'input-required'];

/** Log lines of the runtime (pino, JSON) and the process's unhandled rejections. */
function watch() {
  const lines: Record<string, unknown>[] = [];
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, rejections, logger: pino({ level: 'info' }, stream), stop: () => process.off('unhandledRejection', onRejection) };
}

type Outcome = { kind: 'send' | 'async' | 'stream'; contextId: string; acknowledged?: Task; error?: { code: number; message: string; data?: any } };

const slow = (text: string, contextId: string) => sendParams(text, { contextId }, { metadata: { scriptedDelayMs: 150, scriptedChunks: 4 } });

/** One turn of each kind, recording what it was answered; `acked` resolves once a stream got
 * its task event or a non-blocking send its answer (a blocking send's is its end). */
function turn(rt: TestRuntime, kind: Outcome['kind']): { acked: Promise<void>; done: Promise<Outcome> } {
  const contextId = randomUUID();
  const out: Outcome = { kind, contextId };
  let ack = () => undefined as void;
  const acked = new Promise<void>((resolve) => (ack = resolve));
  if (kind === 'send') ack(); // answered only at its end
  const done = (async () => {
    try {
      if (kind === 'stream') {
        for await (const ev of rt.client.sendMessageStream(slow('Where is my order ORD-23456?', contextId))) {
          if (ev.kind === 'task') out.acknowledged = ev;
          if (ev.kind === 'status-update' && out.acknowledged) out.acknowledged = { ...out.acknowledged, status: ev.status };
          ack();
        }
        return out;
      }
      const params = slow('Where is my order ORD-23456?', contextId);
      if (kind === 'async') params.configuration = { blocking: false };
      const res = (await rt.client.sendMessage(params)) as { result?: Task; error?: Outcome['error'] };
      if (res.error) out.error = res.error;
      else out.acknowledged = res.result;
    } catch (err) {
      // The client throws on a stream's error event: its message carries the JSON-RPC code.
      out.error = { code: Number(/-32\d\d\d/.exec((err as Error).message)?.[0] ?? 0), message: (err as Error).message };
    } finally {
      ack();
    }
    return out;
  })();
  return { acked, done };
}

async function rpc(url: string, method: string, params: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, body: await res.json() };
}

const get = async (url: string, method = 'GET') => {
  const res = await fetch(url, { method });
  return { status: res.status, body: (await res.json()) as any };
};

const del = (url: string) => get(url, 'DELETE');

/** A completed turn is in its thread: the question and the answer. */
async function expectInThread(rt: TestRuntime, contextId: string) {
  const thread = await get(`${rt.url}api/v1/memory/threads/${contextId}/messages`);
  expect(
    thread.body.data?.messages?.map((m: { role: string }) => m.role),
    JSON.stringify(thread.body),
  ).toEqual(['human', 'ai']);
}

/** What the test asserts once the store is back. */
async function checkAfter(rt: TestRuntime, outcomes: Outcome[], w: ReturnType<typeof watch>, address: RegExp) {
  await waitFor(async () => (await get(`${rt.url}readyz`)).status === 200, 20_000, '/readyz 200 again');
  expect((await get(`${rt.url}healthz`)).status).toBe(200);
  for (const o of outcomes) {
    if (o.error) {
      expect(o.error.code, JSON.stringify(o.error)).toBe(STORE_UNAVAILABLE_RPC);
      expect(o.error.message).not.toMatch(address);
      if (!o.acknowledged) continue;
    }
    const ack = o.acknowledged!;
    expect(ack, `${o.kind} answered neither a task nor an error`).toBeDefined();
    // A blocking send answers the turn's end, never a task as it was when a save failed.
    if (o.kind === 'send') expect(FINAL).toContain(ack.status.state);
    // Acknowledged: stored, and ends as answered or failed store_unavailable.
    const stored = await waitFor(
      async () => {
        const r = await rpc(rt.url, 'tasks/get', { id: ack.id });
        return r.body.result && FINAL.includes(r.body.result.status.state) ? (r.body.result as Task) : null;
      },
      20_000,
      `task ${ack.id} (${o.kind}, answered ${ack.status.state}) final in the store`,
    );
    if (FINAL.includes(ack.status.state)) expect(stored.status.state).toBe(ack.status.state);
    else if (stored.status.state !== 'completed') expect(JSON.stringify(stored.status.message)).toContain('store_unavailable');
    if (stored.status.state === 'completed') await expectInThread(rt, o.contextId);
  }
  const fresh = await turn(rt, 'send').done;
  expect(fresh.acknowledged?.status.state, JSON.stringify(fresh)).toBe('completed');
  await expectInThread(rt, fresh.contextId);
  expect(w.rejections).toEqual([]);
  expect(w.lines.filter((l) => /unhandled|uncaught/i.test(String(l.msg)))).toEqual([]);
}

/** While the store is away: the A2A and management answers, and the probes. */
async function checkDuring(rt: TestRuntime, address: RegExp, threadId: string) {
  const refused = await rpc(rt.url, 'message/send', slow('hello', randomUUID()));
  expect(refused.body.error, JSON.stringify(refused.body)).toMatchObject({
    code: STORE_UNAVAILABLE_RPC,
    data: { errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'store_unavailable', retriable: true },
  });
  expect(refused.status).toBe(503);
  expect(JSON.stringify(refused.body)).not.toMatch(address);
  // A write (a read answers on SQLite, whose readers the write lock does not stop).
  const threads = await del(`${rt.url}api/v1/memory/threads/${threadId}`);
  expect(threads.status).toBe(503);
  expect(threads.body).toMatchObject({ success: false, data: null, error: { code: 'STORE_UNAVAILABLE' } });
  expect(JSON.stringify(threads.body)).not.toMatch(address);
  const ready = await get(`${rt.url}readyz`);
  expect(ready.body).toMatchObject({ status: 'not_ready', failing: 'store' });
  expect(JSON.stringify(ready.body)).not.toMatch(address);
  expect((await get(`${rt.url}healthz`)).status).toBe(503);
  expect((await get(`${rt.url}livez`)).status).toBe(200);
}

const KINDS: Outcome['kind'][] = ['send', 'send', 'async', 'async', 'stream', 'stream'];

/** Starts one turn of each kind and resolves once all run and the acknowledged ones are. */
async function underLoad(rt: TestRuntime): Promise<Promise<Outcome>[]> {
  const before = rt.traces.filter((t) => t.name === 'invoke.start').length;
  const turns = KINDS.map((k) => turn(rt, k));
  await Promise.all(turns.map((t) => t.acked));
  await waitFor(async () => rt.traces.filter((t) => t.name === 'invoke.start').length >= before + KINDS.length, 10_000, 'turns started');
  return turns.map((t) => t.done);
}

describe('store outage: PostgreSQL behind a proxy the test cuts', () => {
  let proxy: TcpProxy;
  let rt: TestRuntime;
  let w: ReturnType<typeof watch>;
  const schema = newSchema('outage');

  beforeEach(async () => {
    await ensurePostgres();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    w = watch();
    rt = await startTestRuntime({
      env: { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: `postgresql://postgres@127.0.0.1:${proxy.port}/test`, POSTGRES_SCHEMA: schema, TASK_LEASE_MS: '3000' },
      logger: w.logger,
    });
  });
  afterEach(async () => {
    w.stop();
    await rt?.close();
    await proxy?.close();
  });
  afterAll(() => dropSchema(schema));

  it('acknowledges only what it stored, answers STORE_UNAVAILABLE while cut, and recovers by itself', async () => {
    const warm = await turn(rt, 'send').done;
    expect(warm.acknowledged?.status.state).toBe('completed');
    await expectInThread(rt, warm.contextId);
    const address = new RegExp(`127\\.0\\.0\\.1|:${proxy.port}`);
    const running = await underLoad(rt);
    proxy.cut();
    await checkDuring(rt, address, warm.contextId);
    const outcomes = await Promise.all(running);
    await proxy.restore();
    await checkAfter(rt, outcomes, w, address);
  });

  it('keeps the rule through a blip: connections cut and accepted again while the turns run', async () => {
    const address = new RegExp(`127\\.0\\.0\\.1|:${proxy.port}`);
    const running = await underLoad(rt);
    proxy.cut();
    await proxy.restore();
    await checkAfter(rt, await Promise.all(running), w, address);
  });
});

describe('store outage: SQLite whose write lock another connection holds', () => {
  let rt: TestRuntime;
  let w: ReturnType<typeof watch>;

  beforeEach(async () => {
    w = watch();
    rt = await startTestRuntime({ dataDir: tempDir('outage'), env: { SQLITE_BUSY_TIMEOUT_MS: '200' }, logger: w.logger });
  });
  afterEach(async () => {
    w.stop();
    await rt?.close();
  });

  it('acknowledges only what it stored, answers STORE_UNAVAILABLE while locked, and recovers by itself', async () => {
    const warm = await turn(rt, 'send').done;
    expect(warm.acknowledged?.status.state).toBe('completed');
    await expectInThread(rt, warm.contextId);
    const address = new RegExp(rt.dataDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const running = await underLoad(rt);
    // Another connection takes the write lock: in WAL mode reads go on, every write waits out
    // the busy timeout and fails with SQLITE_BUSY (running as root, file modes would not stop it).
    const locker = new Database(path.join(rt.dataDir, 'memory.sqlite'));
    let outcomes: Outcome[];
    locker.exec('BEGIN EXCLUSIVE');
    try {
      await checkDuring(rt, address, warm.contextId);
      outcomes = await Promise.all(running);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    await checkAfter(rt, outcomes, w, address);
  });
});

describe('the PostgreSQL task store while the database is unreachable', () => {
  const schema = newSchema('outage_close');
  afterAll(() => dropSchema(schema));

  it('reads back a task this process wrote settled (the SDK reads a resumed task so), and refuses any other read', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    const log = { warn: () => undefined, info: () => undefined, error: () => undefined };
    const store = new StoreGuard(log).store(await openPostgresStore({ dsn: `postgresql://postgres@127.0.0.1:${proxy.port}/test`, schema }));
    try {
      const tasks = new SettlingTaskStore(store.taskStore(), log);
      const task: Task = { kind: 'task', id: randomUUID(), contextId: randomUUID(), status: { state: 'input-required' }, history: [], artifacts: [] };
      await tasks.save(task);
      proxy.cut();
      expect(await tasks.load(task.id)).toEqual(task);
      await expect(tasks.load(randomUUID())).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      await proxy.restore();
      await store.close();
      await proxy.close();
    }
  });

  it('resolves, names the in-progress updates it could not write, and leaves no rejection behind', async () => {
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
    const w = watch();
    const warnings: string[] = [];
    try {
      const store = await openPostgresStore({
        dsn: `postgresql://postgres@127.0.0.1:${proxy.port}/test`,
        schema,
        lease: { log: { warn: (_o: object, msg: string) => void warnings.push(msg) } },
      });
      const tasks = store.taskStore();
      const task: Task = { kind: 'task', id: randomUUID(), contextId: randomUUID(), status: { state: 'submitted' }, history: [], artifacts: [] };
      await tasks.save(task); // the first save is written at once
      await tasks.save({ ...task, status: { state: 'working' } }); // an update waits for the next flush
      proxy.cut();
      await store.close();
      expect(warnings).toContain('in-progress task updates not written at close');
      await new Promise((r) => setImmediate(r));
      expect(w.rejections).toEqual([]);
    } finally {
      w.stop();
      await proxy.close();
    }
  });
});
