// Retention of the memory store on both backends (docs/deployment.md, "Retention"): a sweep
// deletes finished tasks and the checkpoints of idle threads past their age, in batches of
// RETENTION_BATCH_SIZE, and never a task still running or waiting for input, nor its thread's
// checkpoints. SQLite on a temp file; PostgreSQL in a fresh schema of its own (dropped after).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import pg from 'pg';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PushStore } from '../../src/main/runtime/store/push-store.ts';
import type { Task, TaskState } from '@a2a-js/sdk';
import { openSqliteStore } from '../../src/main/runtime/store/sqlite.ts';
import { openPostgresStore } from '../../src/main/runtime/store/postgres/store.ts';
import { chatGraph, say } from '../../src/main/runtime/store/test-support.ts';
import type { MemoryStore } from '../../src/main/runtime/store/types.ts';
import { sweepOnce, type RetentionBackend, type RetentionOps, type SweepCounts } from '../../src/main/runtime/store/retention.ts';
import { sqliteRetention } from '../../src/main/runtime/store/retention-sqlite.ts';
import { postgresRetention, retentionLockKey } from '../../src/main/runtime/store/postgres/retention.ts';
import { retentionSettings } from '../../src/main/runtime/settings-values.ts';
import { dropSchema, ensurePostgres, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';
import { startTestRuntime, tempDir } from './helpers/runtime.ts';

const AGENT = 'agent';
const LONG_AGO = '2020-01-01T00:00:00.000Z';
/** Threads with checkpoints; the ones expected to lose them, and the ones that keep them. */
const CLEARED = ['old-done', 'old-idle-1', 'old-idle-2', 'old-idle-3'];
const KEPT = ['old-waiting', 'old-working', 'old-recent-task', 'recent'];
/** Tasks: [id, thread, state, aged]. */
const TASKS: [string, string, TaskState, boolean][] = [
  ['t-completed', 'old-done', 'completed', true],
  ['t-failed', 'old-done', 'failed', true],
  ['t-canceled', 'old-done', 'canceled', true],
  ['t-rejected', 'old-done', 'rejected', true],
  ['t-waiting', 'old-waiting', 'input-required', true],
  ['t-working', 'old-working', 'working', true],
  ['t-recent', 'old-recent-task', 'completed', false],
];
const OLD_FINISHED = ['t-canceled', 't-completed', 't-failed', 't-rejected'];
const settings = retentionSettings({ RETENTION_TASKS_MAX_AGE: '1d', RETENTION_CHECKPOINTS_MAX_AGE: '1d', RETENTION_BATCH_SIZE: '2' });

interface Db {
  store: MemoryStore;
  /** The PostgreSQL schema ('' for SQLite). */
  schema: string;
  retention: () => RetentionBackend;
  /** Marks the threads' checkpoints and the tasks as written long ago. */
  age(threads: string[], tasks: string[]): Promise<void>;
  taskIds(): Promise<string[]>;
  checkpointThreads(): Promise<string[]>;
  blobThreads(): Promise<string[]>;
  threads(): Promise<string[]>;
  close(): Promise<void>;
}

async function fill(db: Db): Promise<void> {
  const graph = chatGraph(db.store.checkpointer(AGENT));
  for (const thread of [...CLEARED, ...KEPT]) await say(graph, thread, 'hello');
  await db.store.appendTranscript(AGENT, 'old-done', [{ role: 'human', content: 'hello' }]);
  const tasks = db.store.taskStore();
  for (const [id, contextId, state] of TASKS) await tasks.save({ kind: 'task', id, contextId, status: { state }, history: [] } satisfies Task);
  await db.age(
    [...CLEARED, ...KEPT].filter((t) => t !== 'recent'),
    TASKS.filter(([, , , aged]) => aged).map(([id]) => id),
  );
}

/** The backend's statements, each batch's size recorded. */
function recorded(ops: RetentionOps, batches: { tasks: number[]; pages: number }) {
  return {
    deleteTasks: async (before: string, limit: number) => {
      const n = await ops.deleteTasks(before, limit);
      batches.tasks.push(n);
      return n;
    },
    clearThreads: async (before: string, after: string, limit: number) => {
      batches.pages++;
      return ops.clearThreads(before, after, limit);
    },
  } satisfies RetentionOps;
}

function sqliteDb(): Db {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'retention-'));
  const file = path.join(dir, 'memory.sqlite');
  const store = openSqliteStore(file);
  const raw = new Database(file);
  const col = (q: string) => Promise.resolve(raw.prepare(q).pluck().all() as string[]);
  return {
    store,
    schema: '',
    retention: () => sqliteRetention(file),
    async age(threads, tasks) {
      for (const t of threads) raw.prepare('UPDATE checkpoints SET created_at = ? WHERE thread_id = ?').run(LONG_AGO, t);
      for (const t of tasks) raw.prepare('UPDATE a2a_tasks SET updated_at = ? WHERE task_id = ?').run(LONG_AGO, t);
    },
    taskIds: () => col('SELECT task_id FROM a2a_tasks ORDER BY task_id'),
    checkpointThreads: () => col('SELECT DISTINCT thread_id FROM checkpoints ORDER BY thread_id'),
    blobThreads: () => col('SELECT DISTINCT thread_id FROM checkpoint_blobs ORDER BY thread_id'),
    threads: () => col('SELECT thread_id FROM threads ORDER BY thread_id'),
    async close() {
      raw.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresDb(schema: string): Promise<Db> {
  const store = await openPostgresStore({ dsn: TEST_DSN, schema });
  const q = `"${schema}"`;
  const col = async (text: string) => (await sql<{ v: string }>(text)).map((r) => r.v);
  return {
    store,
    schema,
    retention: () => postgresRetention(TEST_DSN, schema),
    async age(threads, tasks) {
      await sql(`UPDATE ${q}.checkpoints SET checkpoint = jsonb_set(checkpoint, '{ts}', to_jsonb($1::text)) WHERE thread_id = ANY($2)`, [LONG_AGO, threads]);
      await sql(`UPDATE ${q}.a2a_tasks SET updated_at = $1 WHERE task_id = ANY($2)`, [LONG_AGO, tasks]);
    },
    taskIds: () => col(`SELECT task_id AS v FROM ${q}.a2a_tasks ORDER BY task_id`),
    checkpointThreads: () => col(`SELECT DISTINCT thread_id AS v FROM ${q}.checkpoints ORDER BY thread_id`),
    blobThreads: () => col(`SELECT DISTINCT thread_id AS v FROM ${q}.checkpoint_blobs ORDER BY thread_id`),
    threads: () => col(`SELECT thread_id AS v FROM ${q}.threads ORDER BY thread_id`),
    async close() {
      await store.close();
      await dropSchema(schema);
    },
  };
}

const sorted = (xs: string[]) => [...xs].sort();

describe.each([
  ['sqlite', async () => sqliteDb()],
  ['postgres', async () => postgresDb(newSchema('retention'))],
] as const)('retention on %s', (name, make) => {
  let db: Db | null = null;
  beforeAll(async () => {
    if (name === 'postgres') await ensurePostgres();
  });
  afterEach(async () => {
    await db?.close();
    db = null;
  });

  it('deletes only finished tasks and idle threads past their age, in batches of RETENTION_BATCH_SIZE', async () => {
    db = await make();
    await fill(db);
    // A deleted task's push configurations and notifications go with it; a kept task's stay.
    const push = (db.store as unknown as { pushStore(): PushStore }).pushStore();
    for (const id of ['t-completed', 't-recent']) {
      await push.putConfig(id, { id, url: 'https://hooks.example.com/a' }, 10);
      await push.enqueue(id, 'completed@x', '{}');
    }
    const backend = db.retention();
    const batches = { tasks: [] as number[], pages: 0 };
    let counts: SweepCounts | null;
    try {
      counts = await backend.exclusive((ops) => sweepOnce(recorded(ops, batches), settings));
    } finally {
      await backend.close();
    }
    expect(counts).toEqual({ tasks: 4, threads: 4, checkpoints: expect.any(Number), batches: 3 + 5 });
    // 4 old finished tasks, 2 per transaction; 8 threads looked at, 2 per transaction.
    expect(batches).toEqual({ tasks: [2, 2, 0], pages: 5 });
    expect(await db.taskIds()).toEqual(sorted(TASKS.map(([id]) => id).filter((id) => !OLD_FINISHED.includes(id))));
    expect(await db.checkpointThreads()).toEqual(sorted(KEPT));
    expect(await db.blobThreads()).toEqual(sorted(KEPT));
    expect([await push.configs('t-completed'), await push.outbox('t-completed')]).toEqual([[], []]);
    expect([(await push.configs('t-recent')).length, (await push.outbox('t-recent')).length]).toEqual([1, 1]);
    // Ownership and the transcript stay: the thread is still listed and its messages shown.
    expect(await db.threads()).toEqual(sorted([...CLEARED, ...KEPT]));
    expect(await db.store.readTranscript('old-done')).toEqual([{ role: 'human', content: 'hello' }]);
    // The kept threads still resume where they were.
    const graph = chatGraph(db.store.checkpointer(AGENT));
    expect((await say(graph, 'old-waiting', 'again')).messages).toHaveLength(4);
    expect((await say(graph, 'old-idle-1', 'again')).messages).toHaveLength(2);
  });

  it('a second sweep finds nothing more to delete', async () => {
    db = await make();
    await fill(db);
    const backend = db.retention();
    try {
      await backend.exclusive((ops) => sweepOnce(ops, settings));
      expect(await backend.exclusive((ops) => sweepOnce(ops, settings))).toMatchObject({ tasks: 0, threads: 0, checkpoints: 0 });
    } finally {
      await backend.close();
    }
  });
});

describe('retention on postgres with several replicas', () => {
  it('skips the sweep while another replica holds the sweep lock', async () => {
    await ensurePostgres();
    const db = await postgresDb(newSchema('retention'));
    const other = new pg.Client({ connectionString: TEST_DSN });
    await other.connect();
    const key = retentionLockKey(db.schema);
    const backend = db.retention();
    try {
      await fill(db);
      await other.query('SELECT pg_advisory_lock($1)', [key]);
      expect(await backend.exclusive((ops) => sweepOnce(ops, settings))).toBeNull();
      expect(await db.taskIds()).toHaveLength(TASKS.length);
      await other.query('SELECT pg_advisory_unlock($1)', [key]);
      expect(await backend.exclusive((ops) => sweepOnce(ops, settings))).toMatchObject({ tasks: 4, threads: 4 });
    } finally {
      await other.end();
      await backend.close();
      await db.close();
    }
  });
});

describe('retention in a running runtime', () => {
  it('sweeps in the background and logs a line with the counts', async () => {
    const lines: Record<string, unknown>[] = [];
    let onLine = () => undefined as void;
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
        onLine();
        done();
      },
    });
    const swept = new Promise<Record<string, unknown>>((resolve) => {
      onLine = () => {
        const hit = lines.find((l) => l.retention === 'swept');
        if (hit) resolve(hit);
      };
    });
    const rt = await startTestRuntime({
      dataDir: tempDir('retention-rt'),
      env: { RETENTION_TASKS_MAX_AGE: '1d', RETENTION_CHECKPOINTS_MAX_AGE: '30d', RETENTION_INTERVAL: '1s' },
      logger: pino({ level: 'info' }, sink),
    });
    try {
      const line = await swept;
      expect(line).toMatchObject({ tasks_deleted: 0, threads_cleared: 0, checkpoints_deleted: 0 });
      expect(String(line.msg)).toMatch(/^retention sweep: deleted 0 finished task\(s\) and the checkpoints of 0 idle thread\(s\)/);
    } finally {
      await rt.close();
    }
  });
});
