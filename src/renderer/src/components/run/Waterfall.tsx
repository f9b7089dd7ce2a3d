// The run's node spans as a live waterfall: one row per node execution (fan-out branches and
// subgraph nodes nested under the node that started them), a bar placed by start time and
// sized by duration, and the status. A row opens the span: its state update, its error with
// file:line, and "Go to source".
import { useEffect, useState } from 'react';
import { buildSpans, type RunEnd, type SpanView } from '../../../../shared/spans.ts';
import { formatDuration } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import type { TraceRunEvent } from '../../hooks/useRunStream.ts';
import { BreakpointButtons } from '../graph/BreakpointButtons.tsx';
import { SUBGRAPH_NODE_SEPARATOR } from '../../../../shared/breakpoints.ts';
import { DataTree } from './DataTree.tsx';
import { StateLinks } from './StateLinks.tsx';
import { occurrenceOf } from '../../lib/checkpoint-nav.ts';
import { callsOf, NodeCalls } from './Calls.tsx';
import { foldUsage } from '../../../../shared/usage.ts';
import { SpanCalls, SpanUsageCell } from './UsageViews.tsx';
import type { CallUsage } from '../../../../shared/usage.ts';

const STATUS_LABEL: Record<SpanView['status'], string> = {
  running: 'running',
  completed: 'done',
  interrupted: 'asked for input',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A span the run's end closed was stopped, not asking for input (docs/runtime-traces.md). */
const statusLabel = (span: SpanView): string => (span.endedWithRun && span.status === 'interrupted' ? 'interrupted' : STATUS_LABEL[span.status]);

function Bar({ span, total }: { span: SpanView; total: number }) {
  const left = (span.start / total) * 100;
  const width = span.duration === null ? 100 - left : Math.max(0.8, (span.duration / total) * 100);
  return (
    <span className="waterfall__track" aria-hidden="true">
      <span
        className={`waterfall__bar waterfall__bar--${span.status}`}
        style={{ left: `${Math.min(left, 99)}%`, width: `${Math.min(width, 100 - Math.min(left, 99))}%` }}
      />
    </span>
  );
}

/** The node id a breakpoint names for a span: a subgraph's node with the nodes that run it
 * (`inner:rank`, SUBGRAPH_NODE_SEPARATOR), a branch as its span names it (`work[b]`, or
 * `inner:x[b]` for a branch of a subgraph's node), a top node by its name. */
function breakpointNode(span: SpanView, byId: Map<string, SpanView>): string {
  const outer: string[] = [];
  for (let p = span.parentId ? byId.get(span.parentId) : undefined; p && p.kind === 'node'; p = p.parentId ? byId.get(p.parentId) : undefined)
    outer.unshift(p.node);
  // A branch's span already names its node (`x[b]`): the nodes above that one run the subgraph.
  if (span.kind !== 'node') outer.pop();
  return [...outer, span.node].join(SUBGRAPH_NODE_SEPARATOR);
}

/** `state`: the run and which time the node ran, for the link to the state its step wrote. */
function SpanDetail({
  span,
  sessionId,
  breakpoint,
  state,
  calls,
  recorded,
}: {
  calls: CallUsage[];
  span: SpanView;
  sessionId?: string;
  breakpoint: string;
  state?: { runId: string; occurrence: number; ended: boolean };
  recorded: Record<string, unknown>[];
}) {
  const openSource = useUi((s) => s.openSource);
  const where = span.error?.source;
  return (
    <div className="waterfall__detail" data-testid="span-detail" data-span-id={span.id}>
      <p className="waterfall__facts">
        <strong>{span.node}</strong> · step {span.step} · {statusLabel(span)}
        {span.duration !== null ? ` · ${formatDuration(span.duration)}` : ''}
        <button
          type="button"
          className="btn btn--small"
          data-testid="span-go-to-source"
          onClick={() =>
            openSource({
              node: span.kind === 'node' ? span.node : span.node.replace(/\[.*\]$/, ''),
              ...(where ? { file: where.file, line: where.line, column: where.column } : {}),
            })
          }
        >
          Go to source
        </button>
        {sessionId && state && (span.depth === 0 || span.kind === 'branch') ? (
          <StateLinks sessionId={sessionId} runId={state.runId} node={span.node} occurrence={state.occurrence} ended={state.ended} />
        ) : null}
      </p>
      {sessionId ? <BreakpointButtons sessionId={sessionId} node={breakpoint} /> : null}
      {span.error ? (
        <div className="waterfall__error" role="note" data-testid="span-error">
          <p>
            {span.error.message}
            {where ? (
              <>
                {' '}
                at <code data-testid="span-error-source">{`${where.file}:${where.line}:${where.column}`}</code>
              </>
            ) : null}
          </p>
          {span.stack ? (
            <details>
              <summary>Stack</summary>
              <pre className="waterfall__stack">{span.stack}</pre>
            </details>
          ) : null}
        </div>
      ) : null}
      <SpanCalls calls={calls} />
      {span.interrupts !== undefined ? (
        <>
          <h4 className="subhead">Asked for</h4>
          <DataTree value={span.interrupts as unknown[]} openDepth={2} />
        </>
      ) : null}
      {span.update !== undefined ? (
        <>
          <h4 className="subhead">State update</h4>
          <DataTree value={span.update as Record<string, unknown>} openDepth={2} testId="span-update" />
        </>
      ) : span.status === 'running' ? (
        <p className="muted">Running…</p>
      ) : null}
      <NodeCalls calls={recorded} />
    </div>
  );
}

/** `ended`: how the run ended (null while active): a span it left open ends with it. */
export function Waterfall({ traces, ended, sessionId, runId }: { traces: TraceRunEvent[]; ended: RunEnd | null; sessionId?: string; runId?: string }) {
  const [selected, setSelected] = useState<string | null>(null);
  const events = traces.map((e) => ({ name: e.name, ts: e.ts, data: (e.data ?? {}) as Record<string, unknown> }));
  const tree = buildSpans(events, ended);
  // Each node's share of the run's tokens and cost, when its model calls reported usage.
  const usage = foldUsage(runId ?? '', events);
  const usageBySpan = new Map(usage.spans.map((u) => [u.span_id, u]));
  const withUsage = usage.totals.total_tokens > 0;
  // A span asked for from elsewhere (the compare view's divergence) opens once it is known.
  const focus = useUi((s) => s.focusSpanId);
  const focusKnown = focus !== null && tree.rows.some((r) => r.id === focus);
  useEffect(() => {
    if (!focusKnown) return;
    setSelected(focus);
    useUi.setState({ focusSpanId: null });
    requestAnimationFrame(() => document.querySelector(`[data-span-id="${CSS.escape(focus!)}"]`)?.scrollIntoView({ block: 'center' }));
  }, [focus, focusKnown]);
  // While a node runs, the scale grows with the clock so its bar does too.
  const running = tree.rows.some((r) => r.status === 'running');
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [running]);
  const total = Math.max(1, tree.total, running && Number.isFinite(tree.origin) ? now - tree.origin : 0);
  if (tree.rows.length === 0)
    return <p className="muted">No node has run yet. Each node of the graph appears here as it starts, with its time and its state update.</p>;
  const chosen = tree.rows.find((s) => s.id === selected) ?? null;
  return (
    <div className={`waterfall${withUsage ? ' waterfall--usage' : ''}`} data-testid="waterfall">
      <ol className="waterfall__rows" aria-label={`${tree.rows.length} node executions`}>
        {tree.rows.map((span, index) => (
          <li
            key={span.id}
            data-testid="span-row"
            data-span-id={span.id}
            data-node={span.node}
            data-status={span.status}
            data-ended-with-run={span.endedWithRun ? 'true' : undefined}
            data-kind={span.kind}
            data-depth={span.depth}
          >
            <button
              type="button"
              className={`waterfall__row${span.id === selected ? ' is-selected' : ''}${span.status === 'failed' ? ' is-failed' : ''}`}
              aria-expanded={span.id === selected}
              onClick={() => setSelected(span.id === selected ? null : span.id)}
            >
              <span className="waterfall__name" style={{ paddingLeft: `${span.depth * 14}px` }}>
                {span.node}
              </span>
              <Bar span={span} total={total} />
              <span className="waterfall__time">{span.duration === null ? '…' : formatDuration(span.duration)}</span>
              <span className={`waterfall__status waterfall__status--${span.status}`}>{statusLabel(span)}</span>
              {withUsage ? <SpanUsageCell usage={usageBySpan.get(span.id)} /> : null}
            </button>
            {span.id === selected ? (
              <SpanDetail
                span={span}
                calls={usage.calls.filter((c) => c.parent_span_id === span.id || c.branch_span_id === span.id)}
                sessionId={sessionId}
                breakpoint={breakpointNode(span, new Map(tree.rows.map((r) => [r.id, r])))}
                state={runId ? { runId, occurrence: occurrenceOf(tree.rows, index), ended: ended !== null } : undefined}
                recorded={callsOf(traces, span)}
              />
            ) : null}
          </li>
        ))}
      </ol>
      {chosen === null ? <p className="muted small">Select a node to see its state update{tree.rows.some((r) => r.error) ? ' or its error' : ''}.</p> : null}
    </div>
  );
}
