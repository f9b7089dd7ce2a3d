import { afterEach, describe, expect, it } from 'vitest';
import { defaultFanoutConcurrency, fanOut, setDefaultFanoutConcurrency } from './fanout.ts';

async function observe(n: number, run: (task: (i: number) => Promise<number>) => Promise<number[]>) {
  let active = 0;
  let peak = 0;
  const results = await run(async (i) => {
    active += 1;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 5 + (n - i)));
    active -= 1;
    return i * 10;
  });
  return { peak, results };
}

describe('fan-out with a concurrency cap (spec 8)', () => {
  afterEach(() => setDefaultFanoutConcurrency(4));

  it('caps parallel branches at the default, collects every result in order', async () => {
    setDefaultFanoutConcurrency(2);
    const items = [0, 1, 2, 3, 4, 5, 6];
    const { peak, results } = await observe(items.length, (task) => fanOut(items, task));
    expect(peak).toBe(2);
    expect(results).toEqual(items.map((i) => i * 10));
  });

  it('lets a call site adjust the cap', async () => {
    setDefaultFanoutConcurrency(1);
    const items = [0, 1, 2, 3, 4, 5];
    const { peak } = await observe(items.length, (task) => fanOut(items, task, { maxConcurrency: 3 }));
    expect(peak).toBe(3);
  });

  it('refuses a non-positive cap', () => {
    expect(() => setDefaultFanoutConcurrency(0)).toThrow(RangeError);
    expect(defaultFanoutConcurrency()).toBe(4);
  });
});
