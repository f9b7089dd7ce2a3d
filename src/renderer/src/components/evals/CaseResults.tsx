// An experiment's case results (docs/studio-ui.md, Evals): one row per case × repeat with its
// status, a mark per assertion, scores, duration and tokens. Virtualised with fixed-height
// rows (no measuring), so 10,000 results scroll as smoothly as 20 (bench/evals-ui.bench.ts).
// A row opens below the table with every assertion's message and the way to its run.
import { memo, useCallback, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { CaseStatus, ExperimentCase } from '../../../../shared/experiments.ts';
import { formatDuration } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { formatTokens, formatUsd, usageTitle } from '../../lib/usage-format.ts';
import { StatusBadge } from '../StatusBadge.tsx';

const ROW = 36;
const keyOf = (c: ExperimentCase) => `${c.case_id}#${c.repeat}`;

export const CASE_GLYPH: Record<CaseStatus, string> = { pending: '◷', running: '▶', passed: '✓', failed: '✕', error: '!', cancelled: '⊘' };

export function CaseStatusPill({ status }: { status: CaseStatus }) {
  return (
    <span className={`casestatus casestatus--${status}`} data-testid="case-status" data-status={status}>
      <span aria-hidden="true">{CASE_GLYPH[status]}</span> {status}
    </span>
  );
}

const A_GLYPH = { pass: '✓', fail: '✕', skipped: '–', error: '!' } as const;

/** The case's tokens and cost (its history turns and input), or in / out tokens from an older
 * studio's reply. */
function tokens(c: ExperimentCase): string {
  if (c.usage)
    return c.usage.calls
      ? `${formatTokens(c.usage.total_tokens)}${c.usage.cost_usd !== null ? ` · ${formatUsd(c.usage.cost_usd)}` : c.usage.unpriced_calls ? ' · no price' : ''}`
      : '';
  if (!c.tokens) return '';
  const { input, output } = c.tokens;
  return input === null && output === null ? '' : `${input ?? '?'} / ${output ?? '?'}`;
}

/** One row, memoised whole (its offset is fixed: rows have one height), so a scroll step
 * renders only the rows that come into view. */
const Row = memo(function Row({
  c,
  index,
  start,
  selected,
  onSelect,
}: {
  c: ExperimentCase;
  index: number;
  start: number;
  selected: boolean;
  onSelect: (i: number) => void;
}) {
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      className={`cases__row cases__row--${c.status}${selected ? ' is-selected' : ''}`}
      data-testid="case-row"
      data-case-id={c.case_id}
      data-status={c.status}
      style={{ height: ROW, transform: `translateY(${start}px)` }}
    >
      <span role="cell" className="cases__id">
        <button
          type="button"
          className="linkbtn"
          aria-expanded={selected}
          onClick={() => onSelect(index)}
          data-testid="case-open"
          title={c.description ?? c.input_preview}
        >
          {c.case_id}
          {c.repeat ? <span className="muted"> #{c.repeat + 1}</span> : null}
        </button>
      </span>
      <span role="cell">
        <CaseStatusPill status={c.status} />
      </span>
      <span role="cell" className="cases__asserts">
        {c.assertions.map((a, i) => (
          <span key={i} className={`amark amark--${a.status}`} title={`${a.label}: ${a.status}${a.message ? ` — ${a.message}` : ''}`}>
            {A_GLYPH[a.status]}
          </span>
        ))}
        <span className="visually-hidden">
          {c.assertions.filter((a) => a.status === 'pass').length} of {c.assertions.length} assertions passed
        </span>
      </span>
      <span role="cell" className="cases__scores">
        {c.scores.map((s) => `${s.evaluator} ${s.score ?? '–'}`).join(', ')}
      </span>
      <span role="cell" className="cases__num">
        {c.duration_ms === null ? '' : formatDuration(c.duration_ms)}
      </span>
      <span role="cell" className="cases__num" data-testid="case-usage" title={c.usage?.calls ? usageTitle(c.usage) : undefined}>
        {tokens(c)}
      </span>
      <span role="cell" className="cases__tags">
        {c.tags.join(', ')}
      </span>
    </div>
  );
});

function CaseDetail({ c }: { c: ExperimentCase }) {
  const selectRun = useUi((s) => s.selectRun);
  return (
    <section className="casedetail" aria-label={`Case ${c.case_id}`} data-testid="case-detail" data-case-id={c.case_id}>
      <div className="casedetail__head">
        <strong>{c.case_id}</strong>
        {c.repeat ? <span className="muted"> repeat {c.repeat + 1}</span> : null} <CaseStatusPill status={c.status} />
        {c.run_status ? <StatusBadge status={c.run_status} reason={c.run_reason} compact /> : null}
        {c.run_id && c.session_id ? (
          <button type="button" className="btn btn--small btn--primary-outline" onClick={() => selectRun(c.session_id!, c.run_id!)} data-testid="case-open-run">
            Open its run
          </button>
        ) : null}
      </div>
      <p className="casedetail__input">
        <span className="muted">Input:</span> {c.input_preview}
      </p>
      {c.message ? <p className="field-error">{c.message}</p> : null}
      {c.error_code ? <p className="muted small">Error code: {c.error_code}</p> : null}
      <ul className="casedetail__asserts">
        {c.assertions.map((a, i) => (
          <li key={i} className={`amark-line amark-line--${a.status}`} data-testid="case-assertion" data-status={a.status}>
            <span className={`amark amark--${a.status}`} aria-hidden="true">
              {A_GLYPH[a.status]}
            </span>{' '}
            <code>{a.label}</code> <span className="visually-hidden">{a.status}</span> {a.message}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function CaseResults({ cases, total }: { cases: ExperimentCase[]; total: number }) {
  const parent = useRef<HTMLDivElement>(null);
  const [selected, setSelected] = useState<string | null>(null);
  // Rendered with React's own scheduling, not flushSync inside the scroll event: the overscan
  // (8 rows, more than two scroll steps) covers the frame it may lag.
  const virtual = useVirtualizer({
    count: cases.length,
    getScrollElement: () => parent.current,
    estimateSize: () => ROW,
    overscan: 8,
    useFlushSync: false,
  });
  const open = selected ? cases.find((c) => keyOf(c) === selected) : undefined;
  const onSelect = useCallback((i: number) => setSelected((s) => (s === keyOf(cases[i]) ? null : keyOf(cases[i]))), [cases]);
  return (
    <>
      <div
        role="table"
        aria-label="Case results"
        aria-rowcount={cases.length + 1}
        className="cases"
        data-testid="case-results"
        data-rows={cases.length}
        data-total={total}
      >
        <div role="rowgroup">
          <div role="row" className="cases__row cases__row--head" aria-rowindex={1}>
            {['Case', 'Status', 'Assertions', 'Scores', 'Duration', 'Tokens, cost', 'Tags'].map((h) => (
              <span key={h} role="columnheader">
                {h}
              </span>
            ))}
          </div>
        </div>
        <div ref={parent} role="rowgroup" className="cases__scroll" data-testid="case-scroll">
          {cases.length === 0 ? <p className="muted cases__empty">No case matches these filters.</p> : null}
          <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
            {virtual.getVirtualItems().map((item) => {
              const c = cases[item.index];
              return <Row key={keyOf(c)} c={c} index={item.index} start={item.start} selected={keyOf(c) === selected} onSelect={onSelect} />;
            })}
          </div>
        </div>
      </div>
      {open ? <CaseDetail c={open} /> : null}
    </>
  );
}
