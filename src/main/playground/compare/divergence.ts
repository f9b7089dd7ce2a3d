// Where two runs diverged: their node spans (docs/runtime-traces.md) lined up by position in
// the graph, and the first node execution whose status or state update differs.
//
// A node execution is identified by its chain from the top-level graph down: (superstep,
// node) of each enclosing node, then its own. Nodes of one superstep run in parallel and
// may start in either order, so the order used is (superstep, node name), never the start
// time; a branch of a fan-out or a node of a subgraph sits under the node that started it.
//
// A fork compared with its origin (docs/playground-api.md, "Fork and re-run from a
// checkpoint") is lined up from the forked node on: the nodes before it ran once, in the origin
// (the fork copied their state), so they are the same; the forked node's write is the origin's
// with the edit on top (an `update` divergence there when there was an edit); the fork's own
// steps, counted from its checkpoint, are shifted to follow it.
import type { CompareOptions, Divergence, DivergenceReport, SpanRef } from '../../../shared/compare.ts';
import type { RunFork } from '../../../shared/playground.ts';
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

/** One side is a fork of the other: which side, and where it was forked (RunDetail.fork). */
export interface ForkPair {
  side: 'left' | 'right';
  fork: Pick<RunFork, 'node' | 'patch'>;
}

const keyOf = (chain: [number, string][]) => chain.map(([s, n]) => `${s}:${n}`).join('>');

/** The fork's executions moved to the origin's steps: the top-level step and every nested one
 * that shares its parent's step (a fan-out branch), by `offset`. */
function shifted(p: Placed, offset: number): Placed {
  const chain = p.chain.map(([step, node], i) => [i === 0 || step === p.chain[i - 1]![0] ? step + offset : step, node] as [number, string]);
  return { ...p, chain, key: keyOf(chain) };
}

/** Lines a fork up with its origin: the origin's executions before the forked node, which the
 * fork did not run again, and the forked node's execution with the edit it took. */
function alignFork(origin: Placed[], forked: Placed[], pair: ForkPair) {
  const tops = origin.filter((p) => p.chain.length === 1);
  const at = pair.fork.node ? tops.find((p) => p.span.node === pair.fork.node) : undefined;
  const cut = at ? at.span.step : 0;
  const firstForked = Math.min(...forked.filter((p) => p.chain.length === 1).map((p) => p.span.step));
  const offset = Number.isFinite(firstForked) ? cut + 1 - firstForked : 0;
  const before = origin.filter((p) => p.chain[0]![0] < cut);
  return { at, before: new Set([...before, ...(at ? [at] : [])]), forked: forked.map((p) => shifted(p, offset)) };
}

/** `ends`: how each run ended (null while active): a span a stored run left open ended with
 * it (docs/runtime-traces.md "When a run ends"). `fork`: one run is a fork of the other. */
export function findDivergence(
  left: readonly TraceLike[],
  right: readonly TraceLike[],
  opts: CompareOptions,
  ignored: PathFilter,
  ends: { left: RunEnd | null; right: RunEnd | null } = { left: null, right: null },
  fork: ForkPair | null = null,
): DivergenceReport {
  let l = place(left, ends.left);
  let r = place(right, ends.right);
  const report: DivergenceReport = { available: l.length > 0 && r.length > 0, first: null, only_left: [], only_right: [], same: 0 };
  const differences: { chain: [number, string][]; divergence: Divergence }[] = [];
  const note = (chain: [number, string][], d: Divergence) => differences.push({ chain, divergence: d });
  if (fork) {
    const [origin, forked] = fork.side === 'right' ? [l, r] : [r, l];
    const aligned = alignFork(origin, forked, fork);
    const patch = Object.fromEntries(fork.fork.patch.map((op) => [op.path.slice(1).replace(/~1/g, '/').replace(/~0/g, '~'), op.value]));
    report.same += aligned.before.size - (aligned.at && fork.fork.patch.length ? 1 : 0);
    if (aligned.at && fork.fork.patch.length) {
      // The forked node's write as the fork saw it: the origin's, with the edit on top.
      const was = (aligned.at.span.update ?? {}) as Record<string, unknown>;
      const [a, b] = fork.side === 'right' ? [was, { ...was, ...patch }] : [{ ...was, ...patch }, was];
      const ref = aligned.at.ref;
      const base = { node: ref.node, step: ref.step, path: ref.path, diff: diffJson(a, b, opts, ignored) };
      note(aligned.at.chain, { kind: 'update', ...base, left: fork.side === 'right' ? ref : null, right: fork.side === 'right' ? null : ref });
    }
    const rest = origin.filter((p) => !aligned.before.has(p));
    [l, r] = fork.side === 'right' ? [rest, aligned.forked] : [aligned.forked, rest];
  }
  const rightByKey = new Map(r.map((p) => [p.key, p]));

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
