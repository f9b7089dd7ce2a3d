// Task leases on one SQLite file shared by two processes' stores (docs/deployment.md, "A
// replica that dies"): the reaper fails a task whose lease ran out, once, naming its replica;
// a cancel flag set through one store reaches the store running the task at its renewal;
// stored runtime settings are read back by the other handle.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { openSqliteStore } from './sqlite.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function file(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leases-'));
  dirs.push(dir);
  return path.join(dir, 'memory.sqlite');
}

const working = (id: string): Task => ({ kind: 'task', id, contextId: `ctx-${id}`, status: { state: 'working' }, history: [], artifacts: [] });

describe('task leases on SQLite', () => {
  it('fails the task of a replica that stopped renewing (replica_lost), once, and reports it', async () => {
    const f = file();
    const dead = openSqliteStore(f, { replica: 'dead', leaseMs: 60 });
    const reaped: Task[][] = [];
    const left = openSqliteStore(f, { replica: 'left', leaseMs: 60, onReaped: (t) => reaped.push(t) });
    const other = openSqliteStore(f, { replica: 'other', leaseMs: 60, onReaped: (t) => reaped.push(t) });
    try {
      await dead.taskStore().save(working('t1'));
      expect(await left.taskStore().runningReplica('t1')).toBe('dead');
      await dead.close(); // no more renewals, as after kill -9
      await new Promise((r) => setTimeout(r, 100));
      await Promise.all([left.taskStore().beat(), other.taskStore().beat()]);
      const task = await left.taskStore().load('t1');
      expect(task?.status.state).toBe('failed');
      const data = task?.status.message?.parts.find((p) => p.kind === 'data') as { data: Record<string, unknown> };
      expect(data.data).toMatchObject({ errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'replica_lost', replica: 'dead' });
      // Whichever store's beat came first failed it; the other found nothing left to do.
      expect(reaped.flat().map((t) => t.id)).toEqual(['t1']);
      expect(await left.taskStore().runningReplica('t1')).toBeNull();
    } finally {
      await Promise.all([left.close(), other.close()]);
    }
  });

  it('leaves a task whose lease holds, and hands a cancel asked elsewhere to the running replica', async () => {
    const f = file();
    const cancels: string[] = [];
    const runner = openSqliteStore(f, { replica: 'runner', leaseMs: 5_000, onCancelRequested: (ids) => cancels.push(...ids) });
    const asker = openSqliteStore(f, { replica: 'asker', leaseMs: 60 });
    try {
      await runner.taskStore().save(working('t2'));
      await asker.taskStore().beat();
      expect((await asker.taskStore().load('t2'))?.status.state).toBe('working');
      expect(await asker.taskStore().requestCancel('t2')).toBe(true);
      await runner.taskStore().beat();
      expect(cancels).toContain('t2');
    } finally {
      await Promise.all([runner.close(), asker.close()]);
    }
  });

  it('reads back runtime settings written through another handle, per agent', async () => {
    const f = file();
    const a = openSqliteStore(f);
    const b = openSqliteStore(f);
    try {
      await a.runtimeSettings().write('agent-1', { 'card.url': 'https://a.example/', 'memory.window_size': 7 }, 'r1');
      await a.runtimeSettings().write('agent-2', { 'memory.window_size': 3 }, 'r1');
      expect(await b.runtimeSettings().read('agent-1')).toEqual({ 'card.url': 'https://a.example/', 'memory.window_size': 7 });
      expect(await b.runtimeSettings().read('agent-3')).toEqual({});
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
