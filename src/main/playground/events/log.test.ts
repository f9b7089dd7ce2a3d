import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newSessionId } from '../ids.ts';
import { insertTestRun } from '../store/test-support.ts';
import { PlaygroundStore, toDetail } from '../store/store.ts';
import { RunRecorder } from '../executor/record.ts';
import { EventBus, type BusEntry } from './bus.ts';
import { EventLog } from './log.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function setup(opts: { flushMs?: number; maxBatch?: number } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-log-'));
  dirs.push(dir);
  const store = PlaygroundStore.open(path.join(dir, 'p.sqlite'));
  const session = store.insertSession(newSessionId(), 't', new Date().toISOString());
  const runId = insertTestRun(store, session.session_id, { status: 'running' });
  const bus = new EventBus();
  const log = new EventLog(store, bus, opts);
  return { store, bus, log, runId };
}

describe('EventLog', () => {
  it('numbers events per run and publishes each at once', () => {
    const { log, bus, runId, store } = setup();
    const seen: BusEntry[] = [];
    bus.subscribe(runId, (e) => seen.push(e));
    log.append(runId, 'output.delta', { text: 'a' });
    log.append(runId, 'output.delta', { text: 'b' });
    expect(seen.map((e) => e.seq)).toEqual([1, 2]);
    expect(JSON.parse(seen[1].body)).toMatchObject({ seq: 2, run_id: runId, kind: 'output.delta', text: 'b' });
    // Not yet written, but readable.
    expect(store.readEvents(runId, 0, 10, 10)).toHaveLength(0);
    expect(log.read(runId, 0, 10, 10).map((r) => r.seq)).toEqual([1, 2]);
    log.close();
    expect(store.readEvents(runId, 0, 10, 10).map((r) => r.seq)).toEqual([1, 2]);
    expect(store.getRun(runId)!.last_seq).toBe(2);
  });

  it('writes thousands of deltas in a handful of transactions, never one per event', async () => {
    const { log, runId, store } = setup({ flushMs: 5, maxBatch: 1000 });
    for (let i = 0; i < 5000; i++) log.append(runId, 'output.delta', { text: `t${i}` });
    await new Promise((r) => setTimeout(r, 20));
    expect(store.maxStoredSeq(runId)).toBe(5000);
    expect(log.stats.batches).toBeLessThanOrEqual(6);
  });

  it('reads a range across the written part and the pending batch without gap or duplicate', () => {
    const { log, runId } = setup({ flushMs: 10_000, maxBatch: 3 });
    for (let i = 0; i < 7; i++) log.append(runId, 'output.delta', { text: String(i) }); // 6 written, 1 pending
    expect(log.read(runId, 2, 7, 100).map((r) => r.seq)).toEqual([3, 4, 5, 6, 7]);
    expect(log.read(runId, 2, 5, 100).map((r) => r.seq)).toEqual([3, 4, 5]);
    expect(log.read(runId, 0, 7, 4).map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    log.close();
  });

  it('writes the terminal status at once and drops anything appended after it', () => {
    const { log, runId, store } = setup({ flushMs: 10_000 });
    log.append(runId, 'output.delta', { text: 'x' });
    log.append(runId, 'run.status', { status: 'completed' });
    expect(store.maxStoredSeq(runId)).toBe(2);
    expect(log.isClosed(runId)).toBe(true);
    expect(log.append(runId, 'trace', { name: 'late', data: {} })).toBeNull();
    expect(log.lastSeq(runId)).toBe(2);
    log.close();
  });

  it("writes a run's row changes with its next batch, in one commit, before a later status write", () => {
    const { log, runId, store } = setup({ flushMs: 10_000 });
    log.append(runId, 'output.delta', { text: 'x' });
    log.patchRun(runId, { task_id: 'task-1', scores: [{ evaluator: 'e', score: 0.5 }] });
    expect(store.getRun(runId)!.task_id).toBeNull();
    log.flush();
    expect(store.getRun(runId)).toMatchObject({ task_id: 'task-1', last_seq: 1 });
    // A waiting change is older than the run's end: the end's scores win (record.ts).
    log.patchRun(runId, { scores: [{ evaluator: 'e', score: 0.5 }] });
    new RunRecorder(store, log).end(runId, { status: 'completed', reason: null, parts: [], scores: [{ evaluator: 'e', score: 1 }] });
    expect(toDetail(store.getRun(runId)!)).toMatchObject({ status: 'completed', task_id: 'task-1', scores: [{ evaluator: 'e', score: 1 }] });
    log.close();
  });

  it('writes a state the run leaves at once with the next status write: row and event in that one commit (D-112)', () => {
    const { log, runId, store } = setup({ flushMs: 10_000 });
    const record = new RunRecorder(store, log);
    store.updateRun(runId, { status: 'queued' });
    const commits = countCommits(store);
    record.statusWithBatch(runId, 'preparing');
    // Published at once, written with the batch: the row and its event still never disagree on disk.
    expect(log.read(runId, 0, 10, 10).map((r) => JSON.parse(r.body).status)).toEqual(['preparing']);
    expect(store.getRun(runId)!.status).toBe('queued');
    expect(store.readEvents(runId, 0, 10, 10)).toHaveLength(0);
    record.status(runId, 'running', { started_at: '2026-01-01T00:00:00.000Z' });
    expect(commits()).toBe(1);
    expect(store.getRun(runId)).toMatchObject({ status: 'running', started_at: '2026-01-01T00:00:00.000Z', last_seq: 2 });
    expect(store.readEvents(runId, 0, 10, 10).map((r) => JSON.parse(r.body).status)).toEqual(['preparing', 'running']);
    log.close();
  });

  it("runs a later write in the next batch's transaction, and at once after close (D-112)", () => {
    const { log, runId, store } = setup({ flushMs: 10_000 });
    const commits = countCommits(store);
    log.append(runId, 'output.delta', { text: 'x' });
    log.later(() => store.updateRun(runId, { reason: 'written-later' }));
    expect(store.getRun(runId)!.reason).toBeNull();
    log.flush();
    expect(commits()).toBe(1);
    expect(store.getRun(runId)).toMatchObject({ reason: 'written-later', last_seq: 1 });
    log.close();
    log.later(() => store.updateRun(runId, { reason: 'after-close' }));
    expect(store.getRun(runId)!.reason).toBe('after-close');
  });

  it('writes a later write on its own within flushMs when nothing else comes', async () => {
    const { log, runId, store } = setup({ flushMs: 5 });
    const written = new Promise<void>((resolve) =>
      log.later(() => {
        store.updateRun(runId, { reason: 'timed' });
        resolve();
      }),
    );
    await written;
    expect(store.getRun(runId)!.reason).toBe('timed');
    log.close();
  });

  it('continues the seq of a run from the database (a new process)', () => {
    const { log, runId, store, bus } = setup();
    log.append(runId, 'output.delta', { text: 'x' });
    log.close();
    const next = new EventLog(store, bus);
    expect(next.append(runId, 'run.status', { status: 'interrupted', reason: 'studio_shutdown' })!.seq).toBe(2);
    next.close();
  });
});

/** Counts the store's commits from now on (SQLite's total_changes does not count commits). */
function countCommits(store: PlaygroundStore): () => number {
  let n = 0;
  const tx = store.transaction.bind(store);
  store.transaction = <T>(fn: () => T): T => {
    const outer = !store.db.inTransaction;
    const out = tx(fn);
    if (outer) n += 1;
    return out;
  };
  return () => n;
}
