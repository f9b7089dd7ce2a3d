import { describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { changes, untilSettled } from './follow.ts';

const task = (state: Task['status']['state'], parts: string[][]): Task => ({
  kind: 'task',
  id: 't1',
  contextId: 'c1',
  status: { state },
  artifacts: parts.map((texts, i) => ({ artifactId: `a${i}`, parts: texts.map((text) => ({ kind: 'text' as const, text })) })),
});

describe('following a task from its stored row', () => {
  it('turns new parts into an append, a rewritten artifact into a replacement, and a settled status into the final event', () => {
    expect(changes(task('working', [['He']]), task('working', [['He', 'llo']]))).toEqual([
      { kind: 'artifact-update', taskId: 't1', contextId: 'c1', append: true, artifact: { artifactId: 'a0', parts: [{ kind: 'text', text: 'llo' }] } },
    ]);
    const done = changes(task('working', [['He', 'llo']]), task('completed', [['Hello']]));
    expect(done.map((e) => e.kind)).toEqual(['artifact-update', 'status-update']);
    expect(done[0]).toMatchObject({ append: false, artifact: { parts: [{ text: 'Hello' }] } });
    expect(done[1]).toMatchObject({ status: { state: 'completed' }, final: true });
    expect(changes(task('working', [['x']]), task('working', [['x']]))).toEqual([]);
  });

  it('ends a live stream that has gone quiet with the status of the settled row', async () => {
    const silent: AsyncIterator<unknown> = { next: () => new Promise(() => undefined) };
    const events = [];
    for await (const e of untilSettled(silent, async () => task('failed', []), { pollMs: 10, graceMs: 20 })) events.push(e);
    expect(events).toEqual([{ kind: 'status-update', taskId: 't1', contextId: 'c1', status: { state: 'failed' }, final: true }]);
  });
});
