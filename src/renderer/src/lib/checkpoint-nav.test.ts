import { describe, expect, it } from 'vitest';
import type { SessionCheckpoint } from '../../../shared/thread-state.ts';
import { checkpointAfter, checkpointBefore, occurrenceOf, writtenBy } from './checkpoint-nav.ts';

const cp = (id: string, parent: string | null, writes: string[], next: string[], source = 'loop'): SessionCheckpoint =>
  ({
    checkpoint_id: id,
    parent_checkpoint_id: parent,
    checkpoint_ns: '',
    step: 0,
    source,
    created_at: '2026-01-01T00:00:00Z',
    next,
    writes: Object.fromEntries(writes.map((w) => [w, ['x']])),
    task_id: null,
    run_id: 'run_1',
  }) as SessionCheckpoint;

const run = [
  cp('c0', 'prev', [], ['__start__'], 'input'),
  cp('c1', 'c0', ['__start__'], ['router']),
  cp('c2', 'c1', ['router'], ['skills']),
  cp('c3', 'c2', ['skills'], ['router']),
  cp('c4', 'c3', ['router'], []),
];

describe('checkpoint navigation', () => {
  it('finds the checkpoint a node wrote, the k-th time it ran, and a branch writes in its node', () => {
    expect(checkpointAfter(run, 'router')?.checkpoint_id).toBe('c2');
    expect(checkpointAfter(run, 'router', 1)?.checkpoint_id).toBe('c4');
    expect(checkpointAfter(run, 'skills[refund]')?.checkpoint_id).toBe('c3');
    expect(checkpointAfter(run, 'respond')).toBeNull();
  });

  it('finds the state before a node: the checkpoint waiting for it, else the parent of the one it wrote', () => {
    expect(checkpointBefore(run, 'router')).toBe('c1');
    expect(checkpointBefore(run, 'router', 1)).toBe('c3');
    expect(checkpointBefore(run, 'skills[order_status]')).toBe('c2');
    expect(checkpointBefore([cp('p', 'x', ['guardrail'], ['router'])], 'router')).toBe('p');
    expect(checkpointBefore(run, 'nowhere')).toBeNull();
  });

  it('counts which time a span ran, a branch belonging to its node', () => {
    const rows = [
      { node: 'router', kind: 'node' },
      { node: 'skills', kind: 'node' },
      { node: 'skills[refund]', kind: 'branch' },
      { node: 'router', kind: 'node' },
    ];
    expect(rows.map((_, i) => occurrenceOf(rows, i))).toEqual([0, 0, 0, 1]);
  });

  it('names what wrote a checkpoint', () => {
    expect(run.map(writtenBy)).toEqual(['Input', 'Input applied', 'After router', 'After skills', 'After router']);
  });
});
