// The push outbox on one SQLite file shared by two processes' stores (docs/a2a-conformance.md,
// "Push notifications"; D-90): one notification row per configuration and state change, a row
// claimed by one replica at a time, a dead replica's claim taken over once its lease ran out,
// and a late outcome from the replica that lost the claim ignored.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openSqliteStore } from './sqlite.ts';
import { useTempStoreFile } from './test-support.ts';

const temp = useTempStoreFile('push-');
const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const s of opened.splice(0)) await s.close();
});

/** The push store of a handle on the test's file, as replica `replica`. */
function open(replica: string) {
  const store = openSqliteStore(temp.file, { replica });
  opened.push(store);
  return store.pushStore();
}

describe('push outbox on SQLite', () => {
  it('writes one row per configuration and state change, whoever saves it', async () => {
    const a = open('a');
    const b = open('b');
    expect(await a.enqueue('t1', 'completed@1', '{}')).toBe(0); // no configuration: nothing
    expect(await a.putConfig('t1', { id: 'c1', url: 'https://hooks.example.com/1' }, 2)).toBe('ok');
    expect(await b.putConfig('t1', { id: 'c2', url: 'https://hooks.example.com/2', token: 'x' }, 2)).toBe('ok');
    expect(await a.putConfig('t1', { id: 'c3', url: 'https://hooks.example.com/3' }, 2)).toBe('full');
    expect(await a.putConfig('t1', { id: 'c2', url: 'https://hooks.example.com/2b' }, 2)).toBe('ok'); // replaces
    expect((await b.configs('t1')).map((c) => c.url)).toEqual(['https://hooks.example.com/1', 'https://hooks.example.com/2b']);
    expect(await a.enqueue('t1', 'completed@1', '{"id":"t1"}')).toBe(2);
    expect(await b.enqueue('t1', 'completed@1', '{"id":"t1"}')).toBe(0); // the same state saved again, elsewhere
    await a.deleteConfig('t1', 'c1');
    expect(await a.enqueue('t1', 'input-required@2', '{}')).toBe(1);
    expect((await a.outbox('t1')).map((r) => [r.configId, r.eventKey])).toEqual([
      ['c1', 'completed@1'],
      ['c2', 'completed@1'],
      ['c2', 'input-required@2'],
    ]);
  });

  it("a claim is held by one replica until its lease runs out; then another takes it over and the first one's outcome is ignored", async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 });
    const a = open('a');
    const b = open('b');
    await a.putConfig('t1', { id: 'c1', url: 'https://hooks.example.com/1' }, 10);
    await a.enqueue('t1', 'completed@1', '{"id":"t1"}');
    const [row] = await a.claim('a', 2_000, 10);
    expect(row).toMatchObject({ taskId: 't1', configId: 'c1', attempts: 1, body: '{"id":"t1"}', config: { url: 'https://hooks.example.com/1' } });
    expect(await b.claim('b', 2_000, 10)).toEqual([]);
    vi.setSystemTime(1_000_000 + 2_001); // a died holding it
    const [again] = await b.claim('b', 2_000, 10);
    expect(again).toMatchObject({ id: row.id, attempts: 2 });
    await a.settle(row.id, 'a', { status: 'failed' }, 'late'); // a's outcome, too late: not b's claim
    await b.settle(row.id, 'b', { status: 'delivered' });
    expect(await a.outbox('t1')).toEqual([expect.objectContaining({ status: 'delivered', attempts: 2, claimedBy: 'b', lastError: null })]);
    vi.setSystemTime(1_000_000 + 60_000);
    expect(await a.claim('a', 2_000, 10)).toEqual([]);
  });

  it('a row due again after a back-off is not claimed before its time', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: 5_000_000 });
    const a = open('a');
    await a.putConfig('t1', { id: 'c1', url: 'https://hooks.example.com/1' }, 10);
    await a.enqueue('t1', 'completed@1', '{}');
    const [row] = await a.claim('a', 2_000, 10);
    await a.settle(row.id, 'a', { status: 'pending', delayMs: 500 }, 'HTTP 503');
    expect(await a.claim('a', 2_000, 10)).toEqual([]);
    vi.setSystemTime(5_000_000 + 500);
    expect(await a.claim('a', 2_000, 10)).toEqual([expect.objectContaining({ id: row.id, attempts: 2 })]);
    expect(await a.outbox('t1')).toEqual([expect.objectContaining({ status: 'pending', lastError: 'HTTP 503' })]);
  });
});
