// Structural JSON diff with RFC 6901 paths: add / remove / replace, with the compare options
// (ignored path globs, numeric tolerance, arrays as ordered lists or as multisets).
//
// Paths of `remove` and `replace` point into the left value, paths of `add` into the right
// one: a reader sees where each value was, not a patch to apply in sequence.
import picomatch from 'picomatch';
import type { CompareOptions, JsonChange, JsonDiff } from '../../../shared/compare.ts';

/** Changes kept per diff; a larger diff says `truncated`. */
export const MAX_CHANGES = 20_000;

export function pointerSegment(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

export const childPath = (path: string, key: string | number): string => `${path}/${pointerSegment(key)}`;

/** A compiled ignore list: globs over pointers, leading '/' optional on both sides. */
export type PathFilter = (path: string) => boolean;

export function ignoreFilter(globs: readonly string[]): PathFilter {
  if (globs.length === 0) return () => false;
  const match = picomatch(
    globs.map((g) => g.replace(/^\/+/, '')),
    { dot: true },
  );
  return (path) => path !== '' && match(path.slice(1));
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with object keys sorted: equal values give equal strings. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** The value with every ignored path below `path` removed, for set matching. */
function withoutIgnored(value: unknown, path: string, ignored: PathFilter): unknown {
  if (Array.isArray(value)) return value.filter((_, i) => !ignored(childPath(path, i))).map((v, i) => withoutIgnored(v, childPath(path, i), ignored));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!ignored(childPath(path, k))) out[k] = withoutIgnored(v, childPath(path, k), ignored);
    return out;
  }
  return value;
}

class Differ {
  readonly changes: JsonChange[] = [];
  ignoredCount = 0;
  truncated = false;

  constructor(
    private readonly opts: CompareOptions,
    private readonly ignored: PathFilter,
  ) {}

  private push(change: JsonChange): void {
    if (this.changes.length >= MAX_CHANGES) this.truncated = true;
    else this.changes.push(change);
  }

  private equalScalars(a: unknown, b: unknown): boolean {
    if (typeof a === 'number' && typeof b === 'number') return a === b || Math.abs(a - b) <= this.opts.tolerance;
    return a === b;
  }

  walk(a: unknown, b: unknown, path: string): void {
    if (this.ignored(path)) {
      if (canonicalJson(a) !== canonicalJson(b)) this.ignoredCount += 1;
      return;
    }
    if (Array.isArray(a) && Array.isArray(b)) return this.opts.arrays === 'set' ? this.walkSet(a, b, path) : this.walkOrdered(a, b, path);
    if (isObject(a) && isObject(b)) return this.walkObject(a, b, path);
    if (!this.equalScalars(a, b)) this.push({ op: 'replace', path, old: a, new: b });
  }

  private walkObject(a: Record<string, unknown>, b: Record<string, unknown>, path: string): void {
    // Own keys only: a key named like an Object.prototype member (toString, constructor) is data.
    const has = (o: Record<string, unknown>, k: string) => Object.hasOwn(o, k) && o[k] !== undefined;
    for (const key of Object.keys(a)) {
      if (!has(a, key)) continue;
      const p = childPath(path, key);
      if (!has(b, key)) this.removed(p, a[key]);
      else this.walk(a[key], b[key], p);
    }
    for (const key of Object.keys(b)) {
      if (!has(b, key) || has(a, key)) continue;
      this.added(childPath(path, key), b[key]);
    }
  }

  private walkOrdered(a: unknown[], b: unknown[], path: string): void {
    const common = Math.min(a.length, b.length);
    for (let i = 0; i < common; i++) this.walk(a[i], b[i], childPath(path, i));
    for (let i = common; i < a.length; i++) this.removed(childPath(path, i), a[i]);
    for (let i = common; i < b.length; i++) this.added(childPath(path, i), b[i]);
  }

  /** Multiset: items equal as canonical JSON (ignored paths left out) pair up whatever their
   * positions; the left-over items pair in order and are diffed (tolerance applies there),
   * the rest are removed or added. */
  private walkSet(a: unknown[], b: unknown[], path: string): void {
    const pool = new Map<string, number[]>();
    b.forEach((item, j) => {
      const key = canonicalJson(withoutIgnored(item, childPath(path, j), this.ignored));
      const list = pool.get(key);
      if (list) list.push(j);
      else pool.set(key, [j]);
    });
    const leftOver: number[] = [];
    a.forEach((item, i) => {
      const list = pool.get(canonicalJson(withoutIgnored(item, childPath(path, i), this.ignored)));
      if (list?.length) list.shift();
      else leftOver.push(i);
    });
    const rightOver = [...pool.values()].flat().sort((x, y) => x - y);
    const common = Math.min(leftOver.length, rightOver.length);
    for (let k = 0; k < common; k++) this.walk(a[leftOver[k]], b[rightOver[k]], childPath(path, leftOver[k]));
    for (let k = common; k < leftOver.length; k++) this.removed(childPath(path, leftOver[k]), a[leftOver[k]]);
    for (let k = common; k < rightOver.length; k++) this.added(childPath(path, rightOver[k]), b[rightOver[k]]);
  }

  private removed(path: string, value: unknown): void {
    if (this.ignored(path)) this.ignoredCount += 1;
    else this.push({ op: 'remove', path, old: value });
  }

  private added(path: string, value: unknown): void {
    if (this.ignored(path)) this.ignoredCount += 1;
    else this.push({ op: 'add', path, new: value });
  }
}

export function diffJson(left: unknown, right: unknown, opts: CompareOptions, ignored: PathFilter = ignoreFilter(opts.ignore)): JsonDiff {
  const d = new Differ(opts, ignored);
  d.walk(left, right, '');
  return { changes: d.changes, ignored: d.ignoredCount, truncated: d.truncated };
}

/** Every leaf of a JSON value as [pointer, value] (empty objects and arrays are leaves). */
export function leaves(value: unknown, path = '', out: [string, unknown][] = []): [string, unknown][] {
  if (Array.isArray(value) && value.length) value.forEach((v, i) => leaves(v, childPath(path, i), out));
  else if (isObject(value) && Object.keys(value).length) for (const [k, v] of Object.entries(value)) leaves(v, childPath(path, k), out);
  else out.push([path, value]);
  return out;
}
