// The PostgreSQL end batch (end-batch.ts, D-84) on a pool whose statement answers when the test
// says: a thread's writes are pending from the moment they are queued until the statement that
// carries them has committed, so a read of the thread waits for them (D-116).
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PgEndBatch } from './end-batch.ts';

function heldPool() {
  const answers: (() => void)[] = [];
  const pool = {
    query: () =>
      new Promise((resolve) => {
        answers.push(() => resolve({ rows: [{ thread_id: 't1', agent_id: 'agent' }] }));
      }),
  } as unknown as pg.Pool;
  return { pool, answers };
}

describe('PgEndBatch.pending', () => {
  it("holds a thread's writes as pending while the statement carrying them runs, and not once it committed", async () => {
    const { pool, answers } = heldPool();
    const batch = new PgEndBatch(pool, 'public', { replica: 'r', leaseMs: 15_000 });
    const slow = async () => undefined;
    batch.writeLater({ thread: 't1', agent: 'agent', slow });
    expect(batch.pending('t1')).toBe(true);
    const first = batch.flush(); // as LATER_MS running out does
    await new Promise((r) => setImmediate(r));
    expect(answers).toHaveLength(1); // the statement is on its way
    expect(batch.pending('t1')).toBe(true);
    expect(batch.pending('t2')).toBe(false);

    // A second batch of the same thread queued behind the first: pending until both committed.
    batch.writeLater({ thread: 't1', agent: 'agent', slow });
    const second = batch.flush();
    answers.shift()!();
    await first;
    expect(batch.pending('t1')).toBe(true);
    await new Promise((r) => setImmediate(r));
    answers.shift()!();
    await second;
    expect(batch.pending('t1')).toBe(false);
  });
});
