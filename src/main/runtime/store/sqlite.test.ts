// What only the SQLite memory store does, on real files: schema migrations, WAL, several
// handles (in one process and in two processes) sharing one file, and reading old task rows.
// The behaviour both backends share (ownership, deletes, memory, tasks) is one suite over
// both: test/integration/memory-store.test.ts.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import type { BaseMessage } from '@langchain/core/messages';
import { MIGRATIONS, openSqliteStore } from './sqlite.ts';
import { cfg, chatGraph, say, useTempStoreFile } from './test-support.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, '../../../..');

const temp = useTempStoreFile('memstore-');
const open = (f?: string) => temp.open(f);

describe('openSqliteStore', () => {
  it('creates parent directories, uses WAL and records numbered migrations once', async () => {
    const nested = path.join(temp.dir, 'a', 'b', 'memory.sqlite');
    const store = open(nested);
    await store.ping();
    expect(store.backend).toBe('sqlite');
    await store.close();
    open(nested); // a second open must not re-apply migration 1 (it would fail: tables exist)
    const db = new Database(nested, { readonly: true });
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const versions = db.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all();
      expect(versions).toEqual(MIGRATIONS.map((_, i) => i + 1));
      const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(
        expect.arrayContaining(['a2a_tasks', 'checkpoint_blobs', 'checkpoint_writes', 'checkpoints', 'persistent_memory', 'schema_version', 'threads']),
      );
    } finally {
      db.close();
    }
  });

  it('refuses a file whose schema is newer than this code', async () => {
    await open().close();
    const db = new Database(temp.file);
    db.prepare('INSERT INTO schema_version (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)').run(
      MIGRATIONS.length + 1,
      'later',
      'x'.repeat(64),
      'later',
    );
    db.close();
    expect(() => openSqliteStore(temp.file)).toThrow(`has migration ${MIGRATIONS.length + 1} applied, newer than this build supports`);
  });

  it('several processes opening one fresh file at once apply each migration once', async () => {
    const storeUrl = pathToFileURL(path.join(HERE, 'sqlite.ts')).href;
    const script = path.join(temp.dir, 'opener.mts');
    // Each child loads the code, says so, and opens the file when told (all at the same moment).
    fs.writeFileSync(
      script,
      `import { openSqliteStore } from ${JSON.stringify(storeUrl)};
console.log('loaded');
process.stdin.once('data', async () => {
  await openSqliteStore(process.argv[2]).close();
  console.log('opened');
  process.exit(0);
});
`,
    );
    const children = [0, 1, 2, 3].map(() => {
      const child = spawn(process.execPath, ['--import', 'tsx', script, temp.file], { cwd: REPO, stdio: ['pipe', 'pipe', 'pipe'] });
      let out = '';
      const loaded = new Promise<void>((resolve) => child.stdout.on('data', (d) => ((out += d), out.includes('loaded') && resolve())));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise<{ code: number | null; out: string }>((resolve) => child.on('exit', (code) => resolve({ code, out })));
      return { child, loaded, exited };
    });
    await Promise.all(children.map((c) => c.loaded));
    for (const c of children) c.child.stdin.write('go\n');
    const results = await Promise.all(children.map((c) => c.exited));
    expect(results).toEqual(children.map(() => ({ code: 0, out: 'loaded\nopened\n' })));
    const db = new Database(temp.file, { readonly: true });
    try {
      expect(db.prepare('SELECT version, name FROM schema_version ORDER BY version').all()).toEqual(
        MIGRATIONS.map((m) => ({ version: m.version, name: m.name })),
      );
    } finally {
      db.close();
    }
  });

  it('ping rejects once the store is closed', async () => {
    const store = open();
    await store.ping();
    await store.close();
    await expect(store.ping()).rejects.toThrow();
    await store.close(); // idempotent
  });
});

describe('several handles on one file', () => {
  it("two openSqliteStore() handles see each other's writes", async () => {
    const one = open();
    const two = open();
    const g1 = chatGraph(one.checkpointer('agent'));
    const g2 = chatGraph(two.checkpointer('agent'));
    await say(g1, 't', 'from one');
    const seen = await g2.getState(cfg('t'));
    expect((seen.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['from one', 'reply 1']);
    await say(g2, 't', 'from two');
    const back = await g1.getState(cfg('t'));
    expect((back.values.messages as BaseMessage[]).map((m) => m.content)).toEqual(['from one', 'reply 1', 'from two', 'reply 3']);
    await two.putMemory('agent', 't', 'summary', { by: 'two' });
    expect(await one.getMemory('agent', 't', 'summary')).toEqual({ by: 'two' });
    expect(await one.listThreads('agent')).toEqual(['t']);
    await one.deleteThread('t');
    expect(await two.threadOwner('t')).toBeNull();
    expect(await g2.getState(cfg('t'))).toMatchObject({ values: {} });
  });

  it('two processes write the same file at the same time without SQLITE_BUSY', async () => {
    const storeUrl = pathToFileURL(path.join(HERE, 'sqlite.ts')).href;
    const script = path.join(temp.dir, 'child.mts');
    // The child writes memory and checkpoints in many short transactions while this process
    // does the same; the busy timeout must turn every lock conflict into a wait.
    fs.writeFileSync(
      script,
      `import { openSqliteStore } from ${JSON.stringify(storeUrl)};
const [file, n] = process.argv.slice(2);
const store = openSqliteStore(file);
const saver = store.checkpointer('child');
console.log('ready');
for (let i = 0; i < Number(n); i++) {
  await store.putMemory('child', 'c-' + i, 'k', { i });
  const id = 'ck-' + String(i).padStart(6, '0');
  await saver.put({ configurable: { thread_id: 'child-thread' } },
    { v: 4, id, ts: new Date().toISOString(), channel_values: { n: i }, channel_versions: { n: i + 1 }, versions_seen: {} },
    { source: 'loop', step: i, parents: {} }, { n: i + 1 });
}
await store.close();
console.log('child done');
`,
    );
    const parent = open();
    const N = 300;
    const child = spawn(process.execPath, ['--import', 'tsx', script, temp.file, String(N)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    // Start writing only once the child is about to write, so the two really overlap.
    await new Promise<void>((resolve) => {
      const check = () => (out.includes('ready') ? resolve() : setTimeout(check, 5));
      check();
    });
    let running = true;
    void exited.then(() => (running = false));
    let written = 0;
    for (; written < N || running; written++) {
      await parent.putMemory('parent', `p-${written}`, 'k', { i: written });
      if (written % 20 === 0) await new Promise((r) => setImmediate(r)); // let the exit event in
    }
    const code = await exited;
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out).toContain('child done');
    expect(await parent.listThreads('parent')).toHaveLength(written);
    expect(await parent.listThreads('child')).toHaveLength(N + 1);
    expect(await parent.getMemory('child', `c-${N - 1}`, 'k')).toEqual({ i: N - 1 });
    const latest = await parent.checkpointer('child').getTuple(cfg('child-thread'));
    expect(latest!.checkpoint.channel_values).toEqual({ n: N - 1 });
  });
});

describe('durable A2A task store on SQLite', () => {
  const withState = (state: Task['status']['state']): Task => ({
    kind: 'task',
    id: 'task-1',
    contextId: 'ctx-1',
    status: { state },
    history: [],
    artifacts: [],
  });

  it('upgrades a file whose stored task documents SQLite cannot parse: later lookups on their context still work', async () => {
    // A file at schema 2, as an earlier runtime left it: one task nested past SQLite's JSON
    // depth limit, one unreadable document, and a plain task waiting for input.
    const db = new Database(temp.file);
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
    for (const [i, step] of MIGRATIONS.slice(0, 2).entries()) {
      db.exec(step.sql!);
      db.prepare('INSERT INTO schema_version VALUES (?, ?)').run(i + 1, new Date().toISOString());
    }
    db.prepare("INSERT INTO threads VALUES ('ctx-1', 'a', '2026-01-01')").run();
    const deep = `{"a":`.repeat(1100) + '1' + '}'.repeat(1100);
    const insert = db.prepare('INSERT INTO a2a_tasks (task_id, context_id, task, updated_at) VALUES (?, ?, ?, ?)');
    insert.run('waiting', 'ctx-1', JSON.stringify(withState('input-required')), '2026-01-01T00:00:01Z');
    insert.run('deep', 'ctx-1', `{"id":"deep","status":{"state":"completed"},"metadata":${deep}}`, '2026-01-01T00:00:02Z');
    insert.run('garbled', 'ctx-1', '{"id": "garbled", "status": ', '2026-01-01T00:00:03Z');
    expect(() => db.prepare("SELECT json_extract(task, '$.status.state') FROM a2a_tasks").all()).toThrow(/JSON/);
    db.close();

    const store = open();
    expect(await store.waitingTask('a', 'ctx-1')).toBe('waiting');
    expect((await store.taskStore().load('deep'))?.status.state).toBe('completed');
    await store.taskStore().save({ ...withState('working'), id: 'waiting' });
    expect(await store.waitingTask('a', 'ctx-1')).toBeUndefined();
  });
});
