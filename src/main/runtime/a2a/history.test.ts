import { describe, expect, it } from 'vitest';
import type { Message, Task } from '@a2a-js/sdk';
import { limitHistory } from './history.ts';

const msg = (id: string): Message => ({ kind: 'message', role: 'user', messageId: id, parts: [{ kind: 'text', text: id }] });
const task = (n: number): Task => ({
  kind: 'task',
  id: 't',
  contextId: 'c',
  status: { state: 'completed' },
  history: Array.from({ length: n }, (_, i) => msg(`m${i}`)),
});
const ids = (t: Task) => t.history?.map((m) => m.messageId);

describe('limitHistory (A2A 1.0 historyLength)', () => {
  it('keeps the whole history when historyLength is absent', () => {
    expect(ids(limitHistory(task(3), undefined))).toEqual(['m0', 'm1', 'm2']);
  });
  it('keeps none for 0 (not slice(-0), which would keep all)', () => {
    expect(limitHistory(task(3), 0).history).toEqual([]);
  });
  it('keeps the last n, or all when n is larger', () => {
    expect(ids(limitHistory(task(3), 1))).toEqual(['m2']);
    expect(ids(limitHistory(task(3), 2))).toEqual(['m1', 'm2']);
    expect(ids(limitHistory(task(3), 10))).toEqual(['m0', 'm1', 'm2']);
  });
  it('answers an empty history for a task without one', () => {
    const { history: _, ...bare } = task(0);
    expect(limitHistory(bare as Task, undefined).history).toEqual([]);
  });
  it('never changes the task it is given', () => {
    const t = task(3);
    const out = limitHistory(t, 1);
    out.history!.push(msg('x'));
    expect(ids(t)).toEqual(['m0', 'm1', 'm2']);
    expect(out).not.toBe(t);
  });
  it('passes a Message through', () => {
    const m = msg('only');
    expect(limitHistory(m, 0)).toBe(m);
  });
});
