// Node spans (spans.ts, docs/runtime-traces.md): a task a LangGraph Send started waits for the
// name its task reports (send-gates.ts) before its span starts, and is then a branch
// `node[index]`; a node task starts at once.
import { describe, expect, it } from 'vitest';
import { SpanTracker } from './spans.ts';

describe('SpanTracker and Send tasks', () => {
  it('starts a Send task’s span under the branch name it reports, as a branch', () => {
    const events: [string, Record<string, unknown>][] = [];
    const spans = new SpanTracker((name, fields) => events.push([name, fields]), '/nowhere');
    spans.task([], { id: 'n1', name: 'plan', input: {}, triggers: ['branch:to:plan'] });
    spans.task([], { id: 't1', name: 'score', input: { word: 'b' }, triggers: ['__pregel_push'] });
    expect(events.map(([n, f]) => `${n} ${f.node}`)).toEqual(['span.start plan']);
    spans.branch({ phase: 'label', span_id: 't1', node: 'score[1]' });
    spans.task([], { id: 't1', name: 'score', result: { scored: ['b!'] } });
    expect(events.slice(1).map(([n, f]) => [n, f.node, f.kind])).toEqual([
      ['span.start', 'score[1]', 'branch'],
      ['span.end', 'score[1]', 'branch'],
    ]);
  });

  it('starts a Send task that reported no name when it ends, under its node’s name', () => {
    const events: [string, Record<string, unknown>][] = [];
    const spans = new SpanTracker((name, fields) => events.push([name, fields]), '/nowhere');
    spans.task([], { id: 't1', name: 'score', input: {}, triggers: ['__pregel_push'] });
    spans.task([], { id: 't1', name: 'score', result: {} });
    expect(events.map(([n, f]) => [n, f.node, f.kind, f.status])).toEqual([
      ['span.start', 'score', 'node', undefined],
      ['span.end', 'score', 'node', 'completed'],
    ]);
  });
});
