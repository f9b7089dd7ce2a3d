// A DataPart's arrays of objects as tables (a column per key), beside the tree: results,
// line items and search hits read better in rows.
import { useState } from 'react';

const MAX_ROWS = 500;
const MAX_COLUMNS = 12;

type Row = Record<string, unknown>;

const isRow = (v: unknown): v is Row => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Top-level keys whose value is a non-empty array of objects. */
export function tableKeys(data: Record<string, unknown>): string[] {
  return Object.entries(data)
    .filter(([, v]) => Array.isArray(v) && v.length > 0 && v.every(isRow))
    .map(([k]) => k);
}

const cell = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

export function ArrayTable({ rows, name }: { rows: Row[]; name: string }) {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))].slice(0, MAX_COLUMNS);
  return (
    <div className="arraytable">
      <table className="table table--compact" data-testid="array-table" data-key={name}>
        <caption className="visually-hidden">{name}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.slice(0, MAX_ROWS).map((r, i) => (
            <tr key={i}>
              {columns.map((c) => (
                <td key={c}>
                  <code>{cell(r[c])}</code>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > MAX_ROWS ? (
        <p className="muted small">
          First {MAX_ROWS} of {rows.length} rows; the tree view has them all.
        </p>
      ) : null}
    </div>
  );
}

/** Tree or table for a DataPart with arrays of objects; the tree alone otherwise. */
export function DataViews({ data, tree }: { data: Record<string, unknown>; tree: React.ReactNode }) {
  const keys = tableKeys(data);
  const [view, setView] = useState<'tree' | 'table'>('tree');
  if (keys.length === 0) return <>{tree}</>;
  return (
    <>
      <div className="segmented" role="group" aria-label="Data view">
        {(['tree', 'table'] as const).map((v) => (
          <button
            key={v}
            type="button"
            className={`segmented__btn${view === v ? ' is-on' : ''}`}
            aria-pressed={view === v}
            onClick={() => setView(v)}
            data-testid={`data-view-${v}`}
          >
            {v === 'tree' ? 'Tree' : 'Table'}
          </button>
        ))}
      </div>
      {view === 'tree'
        ? tree
        : keys.map((k) => (
            <div key={k}>
              <h4 className="subhead">
                <code>{k}</code> <span className="muted">({(data[k] as unknown[]).length})</span>
              </h4>
              <ArrayTable rows={data[k] as Row[]} name={k} />
            </div>
          ))}
    </>
  );
}
