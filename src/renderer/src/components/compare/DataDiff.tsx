// The JSON-path table of the DataParts' changes, with a path filter and an operation filter,
// virtualised for 10,000 paths.
import { useMemo, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { DataComparison, JsonChange } from '../../../../shared/compare.ts';

const ROW_PX = 24;
const OPS: JsonChange['op'][] = ['replace', 'add', 'remove'];

export function showValue(v: unknown): string {
  if (v === undefined) return '';
  const s = JSON.stringify(v);
  return s.length > 160 ? `${s.slice(0, 159)}…` : s;
}

function ChangeTable({ changes }: { changes: JsonChange[] }) {
  const [filter, setFilter] = useState('');
  const [ops, setOps] = useState<Set<JsonChange['op']>>(new Set(OPS));
  const shown = useMemo(() => {
    const f = filter.trim().toLowerCase();
    return changes.filter((c) => ops.has(c.op) && (!f || c.path.toLowerCase().includes(f)));
  }, [changes, filter, ops]);
  const parent = useRef<HTMLDivElement>(null);
  const virtual = useVirtualizer({ count: shown.length, getScrollElement: () => parent.current, estimateSize: () => ROW_PX, overscan: 20 });

  return (
    <div className="paths">
      <div className="paths__filters">
        <input
          className="input input--small"
          type="search"
          placeholder="Filter paths, e.g. /items"
          value={filter}
          onChange={(e) => setFilter(e.target.value)}
          aria-label="Filter JSON paths"
          data-testid="path-filter"
        />
        {OPS.map((op) => (
          <label key={op} className="check">
            <input
              type="checkbox"
              checked={ops.has(op)}
              onChange={(e) => {
                const next = new Set(ops);
                if (e.target.checked) next.add(op);
                else next.delete(op);
                setOps(next);
              }}
            />{' '}
            {op}
          </label>
        ))}
        <span className="muted">
          {shown.length} of {changes.length}
        </span>
      </div>
      <div className="paths__head" aria-hidden="true">
        <span>Path</span>
        <span>Change</span>
        <span>Left</span>
        <span>Right</span>
      </div>
      <div ref={parent} className="paths__scroll" role="table" aria-label="Changed JSON paths" style={{ maxHeight: Math.min(shown.length * ROW_PX + 4, 420) }}>
        <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
          {virtual.getVirtualItems().map((item) => {
            const c = shown[item.index];
            return (
              <div
                key={item.key}
                role="row"
                className={`paths__row paths__row--${c.op}`}
                data-testid="path-row"
                data-path={c.path}
                data-op={c.op}
                style={{ transform: `translateY(${item.start}px)`, height: ROW_PX }}
              >
                <code role="cell" title={c.path}>
                  {c.path || '(root)'}
                </code>
                <span role="cell">{c.op}</span>
                <code role="cell" className="paths__old" title={showValue(c.old)}>
                  {showValue(c.old)}
                </code>
                <code role="cell" className="paths__new" title={showValue(c.new)}>
                  {showValue(c.new)}
                </code>
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

export function DataDiff({ items }: { items: DataComparison[] }) {
  if (items.length === 0) return <p className="muted">No DataParts on either side.</p>;
  return (
    <div className="stack">
      {items.map((d) => (
        <div key={d.key} className="datadiff" data-testid="data-diff" data-key={d.key} data-status={d.status}>
          <h4 className="subhead">
            <code>{d.schema ?? `DataPart ${d.key}`}</code> <span className={`pill pill--${d.status}`}>{d.status}</span>
            {d.diff.ignored ? <span className="muted"> · {d.diff.ignored} ignored by your options</span> : null}
            {d.diff.truncated ? <span className="muted"> · only the first {d.diff.changes.length} changes</span> : null}
          </h4>
          {d.status === 'changed' ? (
            <ChangeTable changes={d.diff.changes} />
          ) : d.status === 'equal' ? (
            <p className="muted">Same values{d.diff.ignored ? ' (outside the ignored paths)' : ''}.</p>
          ) : (
            <pre className="codeblock">{JSON.stringify(d.status === 'added' ? d.right : d.left, null, 2).slice(0, 4000)}</pre>
          )}
        </div>
      ))}
    </div>
  );
}
