// The store's edge (guard.ts) on a real SQLite file whose write lock another connection holds
// (docs/deployment.md, "When the store is unreachable"): a write that cannot start leaves the
// store as StoreUnavailableError, whether the memory store, its checkpointer or its task store
// made it; other errors pass unchanged; the outage is logged once, the ping fails while the
// lock is held and once it is noted, and the store answers again when the lock goes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { StoreGuard } from './guard.ts';
import { openSqliteStore } from './sqlite.ts';
import { StoreUnavailableError } from './unavailable.ts';
import type { MemoryStore } from './types.ts';

const cleanup: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function setup() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'guard-'));
  const file = path.join(dir, 'memory.sqlite');
  const lines: { level: string; msg: string }[] = [];
  const log = {
    warn: (_o: object, msg: string) => void lines.push({ level: 'warn', msg }),
    info: (_o: object, msg: string) => void lines.push({ level: 'info', msg }),
  };
  const guard = new StoreGuard(log);
  const store: MemoryStore = guard.store(openSqliteStore(file, { busyTimeoutMs: 50 }));
  const locker = new Database(file);
  cleanup.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => store.close());
  cleanup.push(() => {
    locker.close();
  });
  return { store, guard, locker, lines };
}

const task = (id: string): Task => ({ kind: 'task', id, contextId: 'ctx', status: { state: 'completed' }, history: [], artifacts: [] });

describe('StoreGuard on SQLite', () => {
  it('turns a write that cannot take the lock into StoreUnavailableError, from every part of the store', async () => {
    const { store, locker, lines } = setup();
    locker.exec('BEGIN EXCLUSIVE');
    await expect(store.putMemory('agent', 't1', 'k', 1)).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.taskStore().save(task('a'))).rejects.toBeInstanceOf(StoreUnavailableError);
    const saver = store.checkpointer('agent');
    const config = { configurable: { thread_id: 't2', checkpoint_ns: '' } };
    const checkpoint = { v: 4, id: '1ef0', ts: new Date().toISOString(), channel_values: {}, channel_versions: {}, versions_seen: {} };
    await expect(saver.put(config, checkpoint, { source: 'input', step: -1, parents: {} }, {})).rejects.toBeInstanceOf(StoreUnavailableError);
    // Reads go on under the lock (WAL).
    expect(await store.getMemory('agent', 't1', 'k')).toBeUndefined();
    expect(lines.filter((l) => l.level === 'warn')).toHaveLength(1);
  });

  it('fails the ping while an outage is noted and the lock is held, and recovers once it is released', async () => {
    const { store, guard, locker, lines } = setup();
    locker.exec('BEGIN EXCLUSIVE');
    await store.ping(); // nothing noted yet: a read answers
    await expect(store.putMemory('agent', 't1', 'k', 1)).rejects.toThrow(StoreUnavailableError);
    expect(guard.down).toBe(true);
    await expect(store.ping()).rejects.toMatchObject({ name: 'StoreUnavailableError', detail: expect.stringMatching(/^SQLITE_BUSY/) });
    locker.exec('ROLLBACK');
    await store.ping();
    expect(guard.down).toBe(false);
    expect(lines.map((l) => l.msg)).toEqual([expect.stringMatching(/^the store is unreachable/), 'the store answers again']);
    await store.putMemory('agent', 't1', 'k', 2);
    expect(await store.getMemory('agent', 't1', 'k')).toBe(2);
  });

  it('passes other errors unchanged', async () => {
    const { store, guard } = setup();
    await expect(store.putMemory('agent', 't1', 'k', () => 1)).rejects.toThrow(TypeError);
    expect(guard.down).toBe(false);
  });
});
