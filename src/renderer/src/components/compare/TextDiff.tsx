// A text part's diff: inline or split, word-level highlights, virtualised so a 100k-character
// answer scrolls smoothly (only the rows on screen are in the DOM).
import { useMemo, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TextComparison } from '../../../../shared/compare.ts';
import { inlineRows, splitRows, type Cell, type Segment } from '../../lib/unified.ts';

export type DiffMode = 'inline' | 'split';

const ROW_PX = 20;

function Segments({ segments, tone }: { segments: Segment[]; tone: 'del' | 'ins' | 'ctx' }) {
  return (
    <>
      {segments.map((s, i) =>
        s.changed && tone !== 'ctx' ? (
          <mark key={i} className={`diff__word diff__word--${tone}`}>
            {s.text}
          </mark>
        ) : (
          <span key={i}>{s.text}</span>
        ),
      )}
    </>
  );
}

function CellView({ cell, tone }: { cell: Cell | null; tone: 'del' | 'ins' | 'ctx' }) {
  if (!cell) return <div className="diff__cell diff__cell--empty" />;
  return (
    <div className={`diff__cell diff__cell--${tone}`}>
      <span className="diff__ln">{cell.line}</span>
      <span className="diff__text">
        <Segments segments={cell.segments} tone={tone} />
      </span>
    </div>
  );
}

function useRows(unified: string, mode: DiffMode) {
  return useMemo(() => (mode === 'inline' ? inlineRows(unified) : splitRows(unified)), [unified, mode]);
}

/** `testId` tells a text part's diff from a code file's (CodeChanges.tsx). */
export function TextDiff({ c, mode, testId = 'text-diff' }: { c: TextComparison; mode: DiffMode; testId?: string }) {
  const rows = useRows(c.unified_diff, mode);
  const parent = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: rows.length, getScrollElement: () => parent.current, estimateSize: () => ROW_PX, overscan: 20 });

  if (c.status === 'equal')
    return (
      <p className="muted" data-testid="text-equal">
        Identical text ({c.left?.length ?? 0} characters).
      </p>
    );
  return (
    <div className="diff" data-testid={testId} data-mode={mode} data-status={c.status}>
      <p className="diff__stats">
        <span className="delta delta--up">+{c.lines_added}</span> <span className="delta delta--down">−{c.lines_removed}</span> lines
        {c.left_partial || c.right_partial ? (
          <span className="muted"> · {c.right_partial ? 'right' : 'left'} text is partial (still streaming, or cut by a cancel)</span>
        ) : null}
        {c.diff_timed_out ? <span className="muted"> · too different or too large to align line by line: shown as replaced</span> : null}
      </p>
      <div ref={parent} className="diff__scroll" style={{ height: Math.min(virtual.getTotalSize() + 4, 520) }}>
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {virtual.getVirtualItems().map((item) => {
            const row = rows[item.index];
            return (
              // Long lines wrap: each row is measured once rendered.
              <div
                key={item.key}
                ref={virtual.measureElement}
                data-index={item.index}
                className="diff__row"
                data-testid="diff-row"
                style={{ transform: `translateY(${item.start}px)` }}
              >
                {row.kind === 'hunk' ? (
                  <div className="diff__hunk">{row.header}</div>
                ) : row.kind === 'context' ? (
                  <div className="diff__cell diff__cell--ctx">
                    <span className="diff__ln">{row.left}</span>
                    <span className="diff__text">{row.text}</span>
                  </div>
                ) : row.kind === 'removed' ? (
                  <CellView cell={row.cell} tone="del" />
                ) : row.kind === 'added' ? (
                  <CellView cell={row.cell} tone="ins" />
                ) : (
                  <div className="diff__split">
                    <CellView cell={row.left} tone={row.change === 'context' ? 'ctx' : 'del'} />
                    <CellView cell={row.right} tone={row.change === 'context' ? 'ctx' : 'ins'} />
                  </div>
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** The inline / side-by-side switch of a diff; `testIdPrefix` names its buttons (`<prefix>-inline`). */
export function DiffModeToggle({ mode, onMode, label, testIdPrefix }: { mode: DiffMode; onMode: (m: DiffMode) => void; label: string; testIdPrefix: string }) {
  return (
    <div className="segmented" role="group" aria-label={label}>
      {(['inline', 'split'] as const).map((m) => (
        <button
          key={m}
          type="button"
          className={`segmented__btn${mode === m ? ' is-on' : ''}`}
          aria-pressed={mode === m}
          onClick={() => onMode(m)}
          data-testid={`${testIdPrefix}-${m}`}
        >
          {m === 'inline' ? 'Inline' : 'Side by side'}
        </button>
      ))}
    </div>
  );
}
