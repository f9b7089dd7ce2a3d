// JSON as a readable, collapsible tree: keys, typed values, counts. Disclosure buttons with
// aria-expanded rather than an ARIA tree widget: every row is reachable with Tab and reads
// naturally in a screen reader.
import { useState, type ReactNode } from 'react';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

function isContainer(v: unknown): v is Record<string, unknown> | unknown[] {
  return typeof v === 'object' && v !== null;
}

function summary(v: Record<string, unknown> | unknown[]): string {
  if (Array.isArray(v)) return `${v.length} ${v.length === 1 ? 'item' : 'items'}`;
  const n = Object.keys(v).length;
  return `${n} ${n === 1 ? 'field' : 'fields'}`;
}

function Leaf({ value }: { value: unknown }) {
  if (value === null) return <span className="tree__v tree__v--null">null</span>;
  switch (typeof value) {
    case 'string':
      return <span className="tree__v tree__v--string">{value}</span>;
    case 'number':
      return <span className="tree__v tree__v--number">{String(value)}</span>;
    case 'boolean':
      return <span className="tree__v tree__v--boolean">{String(value)}</span>;
    default:
      return <span className="tree__v">{String(value)}</span>;
  }
}

/** A branch's disclosure button: chevron, name, a count, and anything after them. */
export function TreeToggle({
  open,
  onToggle,
  name,
  count,
  children,
}: {
  open: boolean;
  onToggle: () => void;
  name: string;
  count: string;
  children?: ReactNode;
}) {
  return (
    <button type="button" className="tree__toggle" aria-expanded={open} onClick={onToggle}>
      <span className="tree__chevron" aria-hidden="true">
        {open ? '▾' : '▸'}
      </span>
      <span className="tree__k">{name}</span>
      <span className="tree__count">{count}</span>
      {children}
    </button>
  );
}

function Node({ name, value, depth, openDepth }: { name: string; value: unknown; depth: number; openDepth: number }) {
  const [open, setOpen] = useState(depth < openDepth);
  if (!isContainer(value)) {
    return (
      <li className="tree__row">
        <span className="tree__k">{name}</span>
        <Leaf value={value} />
      </li>
    );
  }
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  return (
    <li className="tree__row tree__row--branch">
      <TreeToggle open={open} onToggle={() => setOpen(!open)} name={name} count={summary(value)} />
      {open ? (
        entries.length ? (
          <ul className="tree__children">
            {entries.map(([k, v]) => (
              <Node key={k} name={Array.isArray(value) ? `[${k}]` : k} value={v} depth={depth + 1} openDepth={openDepth} />
            ))}
          </ul>
        ) : (
          <div className="tree__empty">{Array.isArray(value) ? 'empty list' : 'no fields'}</div>
        )
      ) : null}
    </li>
  );
}

/** Top-level fields are shown directly; nested levels up to `openDepth` start expanded. */
export function DataTree({ value, openDepth = 2, testId }: { value: Json | Record<string, unknown> | unknown[]; openDepth?: number; testId?: string }) {
  const entries: [string, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [`[${i}]`, v])
    : isContainer(value)
      ? Object.entries(value)
      : [['value', value]];
  return (
    <ul className="tree" data-testid={testId ?? 'data-tree'}>
      {entries.map(([k, v]) => (
        <Node key={k} name={k} value={v} depth={1} openDepth={openDepth} />
      ))}
    </ul>
  );
}
