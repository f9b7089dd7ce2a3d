// Node spans from a run's trace events (span.start / span.end, docs/runtime-traces.md) as a
// tree for the timeline's waterfall, and the path of the run through the graph for the
// graph overlay. Pure: the run view folds the live event stream through it.
// No boundary of its own: its input is the `trace` run events (RunEventSchema in
// playground.ts), and what it builds stays in the process that builds it (the renderer's
// timeline, the studio's divergence report).
//
// Every span a run opens is closed when the run ends (docs/runtime-traces.md "When a run
// ends"): the runtime closes them itself, and the studio writes the closing `span.end` of any
// span still open when the run ends (openSpans, closingEnd). A run stored before that rule
// (or a bundle made from one) can still hold a `span.start` without its end: the fold shows
// such a span as ended with the run (RunEnd), never as running for ever.

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
  /** Ended by the run's end, not by its node: the studio closed it (`closed_by: "studio"`),
   * or the fold did for a run stored before the closing rule. */
  endedWithRun?: boolean;
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

/** How the run ended, for the fold: spans it left open end with it. */
export interface RunEnd {
  /** The run's final status (a terminal RunStatus of playground.ts). */
  status: string;
  /** Epoch milliseconds of the run's end, when known (else the last known time). */
  at?: number;
}

/** The state a span left open by a run's end is closed with: `cancelled` for a cancelled
 * run, `interrupted` for every other end (a runtime that died, a studio shutdown, a broken
 * stream): the node did not finish and nobody cancelled it. */
export function closingStatus(runStatus: string): 'cancelled' | 'interrupted' {
  return runStatus === 'cancelled' ? 'cancelled' : 'interrupted';
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function buildSpans(traces: readonly TraceLike[], ended?: RunEnd | null): SpanTree {
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
      if (d.closed_by === 'studio') span.endedWithRun = true;
      last = Math.max(last, span.t0 + span.duration);
    }
  }
  if (ended) {
    // Spans the run's end left open (a run stored before the closing rule): ended with it.
    const at = ended.at !== undefined && Number.isFinite(ended.at) ? ended.at : last;
    for (const span of byId.values()) {
      if (span.status !== 'running') continue;
      span.status = closingStatus(ended.status);
      span.endedWithRun = true;
      span.duration = Math.max(0, at - span.t0);
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
    // A top-level branch is a task a LangGraph Send started (`score[1]`): a run of its node.
    const node = span.kind === 'node' ? span.node : span.node.replace(/\[.*\]$/, '');
    const seen = visits.get(node);
    if (seen) {
      seen.count += 1;
      seen.status = span.status;
    } else visits.set(node, { count: 1, order: visits.size + 1, status: span.status });
  }
  return visits;
}

/** The `span.start` data of every span without its `span.end`, in start order. */
export function openSpans(traces: readonly TraceLike[]): Record<string, unknown>[] {
  const open = new Map<string, Record<string, unknown>>();
  for (const e of traces) {
    const id = str(e.data.span_id);
    if (!id) continue;
    if (e.name === 'span.start' && !open.has(id)) open.set(id, { ts: e.ts, ...e.data });
    else if (e.name === 'span.end') open.delete(id);
  }
  return [...open.values()];
}

/** The `span.end` the studio writes for a span the run's end left open (its `span.start`
 * data): the run's end state, the time from its start, and `closed_by: "studio"`. */
export function closingEnd(start: Record<string, unknown>, runStatus: string, reason: string | null, now = Date.now()): Record<string, unknown> {
  const t0 = Date.parse(str(start.ts) ?? '');
  return {
    ts: new Date(now).toISOString(),
    span_id: start.span_id,
    ...(start.parent_span_id !== undefined ? { parent_span_id: start.parent_span_id } : {}),
    kind: start.kind === 'branch' ? 'branch' : 'node',
    node: start.node,
    step: start.step,
    status: closingStatus(runStatus),
    duration_ms: Number.isFinite(t0) ? Math.max(0, now - t0) : 0,
    closed_by: 'studio',
    ...(reason ? { reason } : {}),
  };
}
