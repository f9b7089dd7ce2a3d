// An experiment's invocation slots (D-118): at most `size` runs hold one, waiting runs take them
// in order, and a run cancelled while it waits never takes one.
import { describe, expect, it } from 'vitest';
import { RunSlots } from './slots.ts';

describe('RunSlots', () => {
  it('grants at most size slots; a release hands the slot to the longest waiting run', async () => {
    const slots = new RunSlots(2);
    const signal = new AbortController().signal;
    expect(await slots.acquire(signal)).toBe(true);
    expect(await slots.acquire(signal)).toBe(true);
    const order: string[] = [];
    const third = slots.acquire(signal).then((ok) => order.push(`third ${ok}`));
    const fourth = slots.acquire(signal).then((ok) => order.push(`fourth ${ok}`));
    await Promise.resolve();
    expect(order).toEqual([]);
    slots.release();
    await third;
    expect(order).toEqual(['third true']);
    slots.release();
    await fourth;
    expect(order).toEqual(['third true', 'fourth true']);
  });

  it('answers false to a run cancelled while it waits, and gives its turn to the next one', async () => {
    const slots = new RunSlots(1);
    expect(await slots.acquire(new AbortController().signal)).toBe(true);
    const cancelled = new AbortController();
    const waiting = slots.acquire(cancelled.signal);
    const next = slots.acquire(new AbortController().signal);
    cancelled.abort();
    expect(await waiting).toBe(false);
    slots.release();
    expect(await next).toBe(true);
    // An already cancelled run never takes a slot.
    const gone = new AbortController();
    gone.abort();
    expect(await slots.acquire(gone.signal)).toBe(false);
  });

  it('never holds more free slots than its size, however often they are released', async () => {
    const slots = new RunSlots(1);
    slots.release();
    slots.release();
    const signal = new AbortController().signal;
    expect(await slots.acquire(signal)).toBe(true);
    let second = false;
    void slots.acquire(signal).then((ok) => (second = ok));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBe(false);
  });
});
