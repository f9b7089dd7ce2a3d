// The closing rule of node spans (docs/runtime-traces.md "When a run ends"), read from a
// run's stored events: every `span.start` has its `span.end`.
import { expect } from 'vitest';
import { openEvents } from './playground-studio.ts';

type Ev = Record<string, any>;

/** Replays the ended run's stored events and answers each span's node and how it ended;
 * fails when a span has no end. */
export async function storedSpanEnds(api: string, runId: string): Promise<{ node: string; status: string; closedBy?: string }[]> {
  const replay = openEvents(api, runId);
  await replay.ended;
  const traces = replay.messages.map((m) => m.data as Ev).filter((d) => d.kind === 'trace');
  const started = traces.filter((t) => t.name === 'span.start');
  expect(started.length).toBeGreaterThan(0);
  const ends = new Map(traces.filter((t) => t.name === 'span.end').map((t) => [t.data.span_id, t.data]));
  return started.map((s) => {
    const end = ends.get(s.data.span_id);
    expect(end, `span ${s.data.node} (${s.data.span_id}) has no span.end`).toBeDefined();
    return { node: s.data.node, status: end.status, ...(end.closed_by ? { closedBy: end.closed_by } : {}) };
  });
}
