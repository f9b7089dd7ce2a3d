// The runtime's trace events for the run (spec 6.3) as a collapsible list, each with a
// one-line summary; invoke.end shows its per-stage latency as a table.
import type { TraceRunEvent } from '../../hooks/useRunStream.ts';
import { formatDuration, formatTime } from '../../lib/format.ts';
import { DataTree } from './DataTree.tsx';

/** The runtime stamps these on every event; they add noise to each entry. */
const STAMP_KEYS = new Set(['name', 'ts', 'task_id', 'context_id', 'agent_id', 'generation']);

function fieldsOf(e: TraceRunEvent): Record<string, unknown> {
  const data = (e.data ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(data).filter(([k]) => !STAMP_KEYS.has(k)));
}

function list(v: unknown): string {
  return Array.isArray(v) ? v.map(String).join(', ') : String(v ?? '');
}

export function traceSummary(name: string, f: Record<string, unknown>): string {
  switch (name) {
    case 'routing':
      return `→ ${list(f.skills ?? f.intents) || 'no skill'}${f.why ? ` (${String(f.why)})` : ''}`;
    case 'guardrail':
      return `${String(f.verdict ?? '')}${f.policy ? ` · ${String(f.policy)}` : ''}`;
    case 'invoke.start':
      return f.parts ? `parts: ${list(f.parts)}` : '';
    case 'invoke.end':
      return `${String(f.state ?? '')}${typeof f.duration_ms === 'number' ? ` · ${formatDuration(f.duration_ms)}` : ''}${f.errorCode ? ` · ${String(f.errorCode)}` : ''}`;
    case 'evaluation.result':
      return `${String(f.evaluator ?? '')}: ${f.score === null ? 'no score' : String(f.score)}`;
    case 'evaluation.error':
      return `${String(f.evaluator ?? '')}: ${String(f.error ?? '')}`;
    default:
      return '';
  }
}

function LatencyTable({ latency }: { latency: Record<string, unknown> }) {
  const rows = Object.entries(latency).filter(([, v]) => typeof v === 'number') as [string, number][];
  const max = Math.max(1, ...rows.map(([, v]) => v));
  return (
    <table className="table table--compact" data-testid="latency-table">
      <caption className="visually-hidden">Time per stage</caption>
      <thead>
        <tr>
          <th scope="col">Stage</th>
          <th scope="col" className="num">
            Time
          </th>
          <th scope="col" aria-hidden="true" />
        </tr>
      </thead>
      <tbody>
        {rows.map(([stage, ms]) => (
          <tr key={stage}>
            <th scope="row">{stage}</th>
            <td className="num">{formatDuration(ms)}</td>
            <td className="bar-cell" aria-hidden="true">
              <span className="bar" style={{ width: `${Math.max(2, (ms / max) * 100)}%` }} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function TraceList({ events }: { events: TraceRunEvent[] }) {
  if (events.length === 0)
    return <p className="muted">No trace events yet. They arrive as the agent works: routing, guardrail, invocation end and evaluations.</p>;
  // The runtime's own timestamp (data.ts) says when it happened; e.ts is when the studio stored it.
  const when = (e: TraceRunEvent) => Date.parse(typeof e.data?.ts === 'string' ? e.data.ts : e.ts);
  const t0 = when(events[0]);
  return (
    <ol className="trace" data-testid="trace-list">
      {events.map((e) => {
        const f = fieldsOf(e);
        const { latency, ...rest } = f;
        const offset = when(e) - t0;
        return (
          <li key={e.seq} className="trace__item" data-testid="trace-event" data-name={e.name}>
            <details>
              <summary>
                <span className="trace__name">{e.name}</span>
                <span className="trace__summary">{traceSummary(e.name, f)}</span>
                <span className="trace__time" title={formatTime(e.ts)}>
                  +{formatDuration(Number.isFinite(offset) ? offset : 0)}
                </span>
              </summary>
              <div className="trace__body">
                {latency && typeof latency === 'object' ? <LatencyTable latency={latency as Record<string, unknown>} /> : null}
                {Object.keys(rest).length ? <DataTree value={rest} openDepth={1} /> : <p className="muted">No further fields.</p>}
              </div>
            </details>
          </li>
        );
      })}
    </ol>
  );
}
