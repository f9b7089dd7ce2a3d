// Comparison of two runs' parts (input or output): text parts by position, DataParts by
// their `schema` value (else by position among those without one), FileParts by name.
import type { CompareOptions, DataComparison, FileComparison, FileMeta, PairStatus, PartsComparison } from '../../../shared/compare.ts';
import type { TaggedPart } from '../../../shared/playground.ts';
import { diffJson, type PathFilter } from './json-diff.ts';
import { compareText, type TextSide } from './text-diff.ts';

/** Keys made unique in order: a key seen n times gets `#n` from its second occurrence on. */
export function withOccurrences(bases: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return bases.map((base) => {
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    return n ? `${base}#${n + 1}` : base;
  });
}

/** Pairs items of two lists by key; a key seen n times pairs its n-th occurrences. */
export function pairByKey<T>(
  left: readonly T[],
  right: readonly T[],
  keysOf: (list: readonly T[]) => string[],
): { key: string; left: T | null; right: T | null; leftIndex: number | null; rightIndex: number | null }[] {
  const keyed = (list: readonly T[]) => {
    const keys = withOccurrences(keysOf(list));
    return list.map((item, index) => ({ key: keys[index], item, index }));
  };
  const rightByKey = new Map(keyed(right).map((r) => [r.key, r]));
  const out: ReturnType<typeof pairByKey<T>> = [];
  for (const l of keyed(left)) {
    const r = rightByKey.get(l.key);
    rightByKey.delete(l.key);
    out.push({ key: l.key, left: l.item, right: r?.item ?? null, leftIndex: l.index, rightIndex: r?.index ?? null });
  }
  for (const r of rightByKey.values()) out.push({ key: r.key, left: null, right: r.item, leftIndex: null, rightIndex: r.index });
  return out;
}

type DataPart = Extract<TaggedPart, { kind: 'data' }>;

export const dataPartsOf = (parts: readonly TaggedPart[]): DataPart[] => parts.filter((p): p is DataPart => p.kind === 'data');

/** DataParts match by their `schema` value, else `#n` (the n-th part without one). */
export function dataPartKeys(list: readonly DataPart[]): string[] {
  let unnamed = 0;
  return list.map((p) => (typeof p.data.schema === 'string' ? p.data.schema : `#${unnamed++}`));
}
type FilePart = Extract<TaggedPart, { kind: 'file' }>;

const schemaOf = (p: DataPart): string | null => (typeof p.data.schema === 'string' ? p.data.schema : null);

function fileMeta(p: FilePart): FileMeta {
  return {
    name: p.name ?? null,
    mime_type: p.mime_type ?? null,
    size: p.source === 'inline' ? p.size : null,
    sha256: p.source === 'inline' ? p.sha256 : null,
    uri: p.source === 'uri' ? p.uri : null,
    source: p.source,
  };
}

const same = <T>(a: T | null, b: T | null): boolean | null => (a === null && b === null ? null : a === b);

function compareFile(key: string, l: FilePart | null, r: FilePart | null): FileComparison {
  const left = l ? fileMeta(l) : null;
  const right = r ? fileMeta(r) : null;
  if (!left || !right)
    return { key, status: left ? 'removed' : 'added', left, right, same_mime_type: null, same_size: null, same_sha256: null, same_uri: null };
  const c: FileComparison = {
    key,
    status: 'equal',
    left,
    right,
    same_mime_type: left.mime_type === right.mime_type,
    same_size: same(left.size, right.size),
    same_sha256: same(left.sha256, right.sha256),
    same_uri: same(left.uri, right.uri),
  };
  const differs = !c.same_mime_type || c.same_size === false || c.same_sha256 === false || c.same_uri === false || left.source !== right.source;
  c.status = differs ? 'changed' : 'equal';
  return c;
}

/** Text parts of a run: its stored ones, or (`streamed`) what an active run streamed so far. */
function textSides(parts: readonly TaggedPart[], streamed: string | null): TextSide[] {
  const texts = parts.filter((p): p is Extract<TaggedPart, { kind: 'text' }> => p.kind === 'text').map((p) => ({ text: p.text, partial: p.partial === true }));
  if (texts.length === 0 && streamed !== null) return [{ text: streamed, partial: true }];
  return texts;
}

export interface PartsSide {
  parts: readonly TaggedPart[];
  /** The text an active run streamed so far, or null. */
  streamed: string | null;
}

export function compareParts(left: PartsSide, right: PartsSide, opts: CompareOptions, ignored: PathFilter): PartsComparison {
  const lt = textSides(left.parts, left.streamed);
  const rt = textSides(right.parts, right.streamed);
  const text = Array.from({ length: Math.max(lt.length, rt.length) }, (_, i) => compareText(i, lt[i] ?? null, rt[i] ?? null));

  const data = pairByKey<DataPart>(dataPartsOf(left.parts), dataPartsOf(right.parts), dataPartKeys).map((pair): DataComparison => {
    const schema = pair.left ? schemaOf(pair.left) : pair.right ? schemaOf(pair.right) : null;
    const base = { key: pair.key, schema, left_index: pair.leftIndex, right_index: pair.rightIndex };
    if (!pair.left || !pair.right) {
      return {
        ...base,
        status: pair.left ? 'removed' : 'added',
        diff: { changes: [], ignored: 0, truncated: false },
        ...(pair.left ? { left: pair.left.data } : { right: pair.right!.data }),
      };
    }
    const diff = diffJson(pair.left.data, pair.right.data, opts, ignored);
    return { ...base, status: diff.changes.length ? 'changed' : 'equal', diff };
  });

  const filesOf = (parts: readonly TaggedPart[]) => parts.filter((p): p is FilePart => p.kind === 'file');
  const files = pairByKey<FilePart>(filesOf(left.parts), filesOf(right.parts), (list) => list.map((p, i) => p.name ?? `(unnamed ${i + 1})`)).map((pair) =>
    compareFile(pair.key, pair.left, pair.right),
  );

  const equal = [...text, ...data, ...files].every((c) => (c.status as PairStatus) === 'equal');
  return { equal, text, data, files };
}
