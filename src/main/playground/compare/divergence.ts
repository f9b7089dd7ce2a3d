// Where two runs diverged: their node spans (docs/runtime-traces.md) lined up by position in
// the graph, and the first node execution whose status or state update differs.
//
// A node execution is identified by its chain from the top-level graph down: (superstep,
// node) of each enclosing node, then its own. Nodes of one superstep run in parallel and
// may start in either order, so the order used is (superstep, node name), never the start
// time; a branch of a fan-out or a node of a subgraph sits under the node that started it.
import type { CompareOptions, Divergence, DivergenceReport, SpanRef } from '../../../shared/compare.ts';
import { buildSpans, type RunEnd, type SpanView } from '../../../shared/spans.ts';
import { diffJson, type PathFilter } from './json-diff.ts';

interface TraceLike {
  name: string;
  ts: string;
  data: Record<string, unknown>;
}

interface Placed {
  span: SpanView;
  chain: [number, string][];
  key: string;
  ref: SpanRef;
}

function place(traces: readonly TraceLike[], ended: RunEnd | null): Placed[] {
  const out: Placed[] = [];
  const walk = (spans: SpanView[], above: [number, string][]) => {
    for (const span of spans) {
      const chain: [number, string][] = [...above, [span.step, span.node]];
      const path = chain.map(([, n]) => n);
      out.push({
        span,
        chain,
        key: chain.map(([s, n]) => `${s}:${n}`).join('>'),
        ref: { span_id: span.id, node: span.node, step: span.step, status: span.status, path },
      });
      walk(span.children, chain);
    }
  };
  walk(buildSpans(traces, ended).roots, []);
  return out;
}

function compareChains(a: [number, string][], b: [number, string][]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i][0] !== b[i][0]) return a[i][0] - b[i][0];
    if (a[i][1] !== b[i][1]) return a[i][1] < b[i][1] ? -1 : 1;
  }
  return a.length - b.length;
}

/** What a span wrote: its state update, or for an interrupted node the interrupt values. */
const written = (s: SpanView): unknown => (s.update !== undefined ? s.update : s.interrupts !== undefined ? { interrupts: s.interrupts } : null);

/** `ends`: how each run ended (null while active): a span a stored run left open ended with
 * it (docs/runtime-traces.md "When a run ends"). */
export function findDivergence(
  left: readonly TraceLike[],
  right: readonly TraceLike[],
  opts: CompareOptions,
  ignored: PathFilter,
  ends: { left: RunEnd | null; right: RunEnd | null } = { left: null, right: null },
): DivergenceReport {
  const l = place(left, ends.left);
  const r = place(right, ends.right);
  const report: DivergenceReport = { available: l.length > 0 && r.length > 0, first: null, only_left: [], only_right: [], same: 0 };
  const rightByKey = new Map(r.map((p) => [p.key, p]));
  const differences: { chain: [number, string][]; divergence: Divergence }[] = [];
  const note = (chain: [number, string][], d: Divergence) => differences.push({ chain, divergence: d });

  for (const lp of l) {
    const rp = rightByKey.get(lp.key);
    if (!rp) {
      report.only_left.push(lp.ref);
      note(lp.chain, { kind: 'only_left', node: lp.span.node, step: lp.span.step, path: lp.ref.path, left: lp.ref, right: null, diff: null });
      continue;
    }
    rightByKey.delete(lp.key);
    const diff = diffJson(written(lp.span), written(rp.span), opts, ignored);
    const base = { node: lp.span.node, step: lp.span.step, path: lp.ref.path, left: lp.ref, right: rp.ref, diff };
    if (lp.span.status !== rp.span.status) note(lp.chain, { kind: 'status', ...base });
    else if (diff.changes.length) note(lp.chain, { kind: 'update', ...base });
    else report.same += 1;
  }
  for (const rp of rightByKey.values()) {
    report.only_right.push(rp.ref);
    note(rp.chain, { kind: 'only_right', node: rp.span.node, step: rp.span.step, path: rp.ref.path, left: null, right: rp.ref, diff: null });
  }
  differences.sort((a, b) => compareChains(a.chain, b.chain));
  report.first = differences[0]?.divergence ?? null;
  return report;
}
