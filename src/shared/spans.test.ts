import { describe, expect, it } from 'vitest';
import { buildSpans, closingEnd, closingStatus, graphPath, openSpans } from './spans.ts';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
const start = (id: string, node: string, ms: number, extra: Record<string, unknown> = {}) => ({
  name: 'span.start',
  ts: at(ms),
  data: { span_id: id, node, kind: 'node', step: 1, ts: at(ms), ...extra },
});
const end = (id: string, ms: number, duration: number, extra: Record<string, unknown> = {}) => ({
  name: 'span.end',
  ts: at(ms),
  data: { span_id: id, status: 'completed', duration_ms: duration, ts: at(ms), ...extra },
});

describe('buildSpans', () => {
  it('nests branches and subgraph nodes under their parent, in start order, with offsets', () => {
    const tree = buildSpans([
      start('a', 'prepare', 0),
      end('a', 5, 5, { update: { x: 1 } }),
      start('b', 'work', 6),
      start('b/0', 'work[x]', 7, { parent_span_id: 'b', kind: 'branch' }),
      start('b/1', 'work[y]', 7, { parent_span_id: 'b', kind: 'branch' }),
      end('b/1', 9, 2, { status: 'failed', error: { message: 'boom', source: { file: 'src/g.ts', line: 3, column: 9 } } }),
      { name: 'routing', ts: at(8), data: {} },
      end('b', 10, 4, { status: 'failed' }),
    ]);
    expect(tree.roots.map((s) => s.node)).toEqual(['prepare', 'work']);
    expect(tree.rows.map((s) => [s.node, s.depth, s.status])).toEqual([
      ['prepare', 0, 'completed'],
      ['work', 0, 'failed'],
      ['work[x]', 1, 'running'],
      ['work[y]', 1, 'failed'],
    ]);
    expect(tree.rows[0].update).toEqual({ x: 1 });
    expect(tree.rows[3].error?.source?.line).toBe(3);
    expect(tree.rows[1].start).toBe(6);
    expect(tree.total).toBe(10);
  });

  it('keeps a span running until its end arrives, and ignores an end without a start', () => {
    const tree = buildSpans([start('a', 'n', 0), end('zzz', 3, 3)]);
    expect(tree.rows).toHaveLength(1);
    expect(tree.rows[0]).toMatchObject({ status: 'running', duration: null });
  });
});

describe('spans a run left open', () => {
  it('ends them with the run in the fold: cancelled for a cancel, interrupted otherwise, never running', () => {
    const traces = [
      start('a', 'classify', 0),
      end('a', 5, 5),
      start('b', 'respond', 6),
      start('b/0', 'respond[x]', 7, { parent_span_id: 'b', kind: 'branch' }),
    ];
    const cancelled = buildSpans(traces, { status: 'cancelled', at: Date.parse(at(26)) });
    expect(cancelled.rows.map((s) => [s.node, s.status, s.duration])).toEqual([
      ['classify', 'completed', 5],
      ['respond', 'cancelled', 20],
      ['respond[x]', 'cancelled', 19],
    ]);
    expect(cancelled.total).toBe(26);
    const died = buildSpans(traces, { status: 'interrupted' });
    expect(died.rows.map((s) => s.status)).toEqual(['completed', 'interrupted', 'interrupted']);
    expect(died.rows[1].duration).toBe(1); // without the end's time: up to the last known time
    expect(buildSpans(traces, { status: 'failed' }).rows[1].status).toBe('interrupted');
    expect(buildSpans(traces).rows[1].status).toBe('running'); // a live run: still running
    expect(graphPath(cancelled).get('respond')?.status).toBe('cancelled');
  });

  it('counts a top-level branch (a task a LangGraph Send started) as a run of its node in the graph path', () => {
    const tree = buildSpans([
      start('p', 'plan', 0),
      end('p', 1, 1),
      start('t0', 'score[0]', 2, { kind: 'branch' }),
      start('t1', 'score[1]', 2, { kind: 'branch' }),
      end('t0', 3, 1),
      end('t1', 4, 2, { status: 'interrupted' }),
    ]);
    expect(tree.roots.map((r) => r.node)).toEqual(['plan', 'score[0]', 'score[1]']);
    expect(graphPath(tree).get('score')).toEqual({ count: 2, order: 2, status: 'interrupted' });
    expect(graphPath(tree).has('score[0]')).toBe(false);
  });

  it('finds the open spans and writes their closing end, in the run end state', () => {
    const open = openSpans([start('a', 'classify', 0), end('a', 5, 5), start('b', 'respond', 6, { parent_span_id: 'p' })]);
    expect(open.map((o) => o.span_id)).toEqual(['b']);
    const closing = closingEnd(open[0], 'cancelled', 'user_cancelled', Date.parse(at(16)));
    expect(closing).toEqual({
      ts: at(16),
      span_id: 'b',
      parent_span_id: 'p',
      kind: 'node',
      node: 'respond',
      step: 1,
      status: 'cancelled',
      duration_ms: 10,
      closed_by: 'studio',
      reason: 'user_cancelled',
    });
    expect(closingStatus('interrupted')).toBe('interrupted');
    const tree = buildSpans([start('b', 'respond', 6), { name: 'span.end', ts: at(16), data: closing }]);
    expect(tree.rows[0]).toMatchObject({ status: 'cancelled', duration: 10 });
  });
});

describe('graphPath', () => {
  it('orders the nodes that ran, counts loops, and keeps the latest status', () => {
    const tree = buildSpans([
      start('1', 'a', 0),
      end('1', 1, 1),
      start('2', 'b', 2),
      end('2', 3, 1),
      start('3', 'a', 4),
      end('3', 5, 1, { status: 'failed' }),
      start('4', 'c', 6),
    ]);
    const path = graphPath(tree);
    expect([...path.entries()]).toEqual([
      ['a', { count: 2, order: 1, status: 'failed' }],
      ['b', { count: 1, order: 2, status: 'completed' }],
      ['c', { count: 1, order: 3, status: 'running' }],
    ]);
  });
});
