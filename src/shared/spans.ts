// Node spans from a run's trace events (span.start / span.end, docs/runtime-traces.md) as a
// tree for the timeline's waterfall, and the path of the run through the graph for the
// graph overlay. Pure: the run view folds the live event stream through it.
// No boundary of its own: its input is the `trace` run events (RunEventSchema in
// playground.ts), and what it builds stays in the process that builds it (the renderer's
// timeline, the studio's divergence report).

export type SpanStatus = 'running' | 'completed' | 'interrupted' | 'failed' | 'cancelled';

export interface SourcePosition {
  file: string;
  line: number;
  column: number;
}

export interface SpanError {
  message: string;
  errorCode?: string;
  source?: SourcePosition;
}

export interface SpanView {
  id: string;
  parentId: string | null;
  node: string;
  kind: 'node' | 'branch';
  step: number;
  status: SpanStatus;
  /** Milliseconds since the first span of the run started. */
  start: number;
  /** null while running. */
  duration: number | null;
  update?: unknown;
  interrupts?: unknown;
  error?: SpanError;
  stack?: string;
  depth: number;
  children: SpanView[];
}

export interface SpanTree {
  roots: SpanView[];
  /** Every span in display order (depth first), with its depth. */
  rows: SpanView[];
  /** Milliseconds from the first span's start to the last known end. */
  total: number;
  /** Epoch milliseconds of the first span's start (NaN without spans). */
  origin: number;
}

interface TraceLike {
  name: string;
  ts: string;
  data: Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function buildSpans(traces: readonly TraceLike[]): SpanTree {
  const byId = new Map<string, SpanView & { t0: number }>();
  const order: string[] = [];
  let origin = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const e of traces) {
    if (e.name !== 'span.start' && e.name !== 'span.end') continue;
    const d = e.data;
    const id = str(d.span_id);
    if (!id) continue;
    const at = Date.parse(str(d.ts) ?? e.ts);
    if (e.name === 'span.start') {
      if (byId.has(id)) continue;
      origin = Math.min(origin, at);
      last = Math.max(last, at);
      byId.set(id, {
        id,
        parentId: str(d.parent_span_id) ?? null,
        node: str(d.node) ?? '?',
        kind: d.kind === 'branch' ? 'branch' : 'node',
        step: typeof d.step === 'number' ? d.step : 0,
        status: 'running',
        start: 0,
        duration: null,
        depth: 0,
        children: [],
        t0: at,
      });
      order.push(id);
    } else {
      const span = byId.get(id);
      if (!span) continue;
      span.status = (['completed', 'interrupted', 'failed', 'cancelled'] as const).find((s) => s === d.status) ?? 'completed';
      span.duration = typeof d.duration_ms === 'number' ? d.duration_ms : Math.max(0, at - span.t0);
      if (d.update !== undefined) span.update = d.update;
      if (d.interrupts !== undefined) span.interrupts = d.interrupts;
      if (d.error && typeof d.error === 'object') span.error = d.error as SpanError;
      if (typeof d.stack === 'string') span.stack = d.stack;
      last = Math.max(last, span.t0 + span.duration);
    }
  }
  const roots: SpanView[] = [];
  for (const id of order) {
    const span = byId.get(id)!;
    span.start = span.t0 - origin;
    const parent = span.parentId ? byId.get(span.parentId) : undefined;
    if (parent && parent !== span) parent.children.push(span);
    else roots.push(span);
  }
  const rows: SpanView[] = [];
  const walk = (list: SpanView[], depth: number) => {
    for (const s of list) {
      s.depth = depth;
      rows.push(s);
      walk(s.children, depth + 1);
    }
  };
  walk(roots, 0);
  return { roots, rows, total: Number.isFinite(origin) ? Math.max(1, last - origin) : 0, origin: Number.isFinite(origin) ? origin : Number.NaN };
}

export interface NodeVisit {
  /** How many times the node ran (loops run a node more than once). */
  count: number;
  /** 1-based position of its first run in the path. */
  order: number;
  /** Of its latest run. */
  status: SpanStatus;
}

/** The run's path through the top-level graph: each node that ran, how often, how it ended. */
export function graphPath(tree: SpanTree): Map<string, NodeVisit> {
  const visits = new Map<string, NodeVisit>();
  for (const span of tree.roots) {
    if (span.kind !== 'node') continue;
    const seen = visits.get(span.node);
    if (seen) {
      seen.count += 1;
      seen.status = span.status;
    } else visits.set(span.node, { count: 1, order: visits.size + 1, status: span.status });
  }
  return visits;
}
