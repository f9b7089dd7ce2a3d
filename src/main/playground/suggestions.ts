// The composer's memory of what worked: per input contract and field, the scalar values that
// the project's earlier successful runs sent (docs/playground-api.md, GET /composer-schema).
import type { TaggedPart } from '../../shared/playground.ts';
import {
  HISTORY_FIELDS_PER_CONTRACT,
  HISTORY_MAX_STRING,
  HISTORY_VALUES_PER_FIELD,
  type FieldHistory,
  type UsedScalar,
  type UsedValue,
} from '../../shared/suggestions.ts';

interface Tally {
  value: UsedScalar;
  count: number;
  last_used_at: string;
}

const escapeToken = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every scalar leaf of `value` with its pointer (array elements as `*`). */
function* leaves(value: unknown, pointer: string, depth: number): Generator<[string, UsedScalar]> {
  if (depth > 8) return;
  if (typeof value === 'string') {
    if (value.length > 0 && value.length <= HISTORY_MAX_STRING) yield [pointer, value];
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    if (typeof value !== 'number' || Number.isFinite(value)) yield [pointer, value];
  } else if (Array.isArray(value)) {
    for (const item of value) yield* leaves(item, `${pointer}/*`, depth + 1);
  } else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) yield* leaves(v, `${pointer}/${escapeToken(k)}`, depth + 1);
  }
}

/**
 * Learns, per contract `schema`, the values each field held in `runs` (newest first). The
 * `schema` key itself is left out (it is the contract's id). A value counts once per run.
 */
export function harvestHistory(runs: readonly { input_parts: readonly TaggedPart[]; created_at: string }[]): Map<string, FieldHistory[]> {
  const bySchema = new Map<string, Map<string, Map<string, Tally>>>();
  for (const run of runs) {
    const seen = new Set<string>();
    for (const part of run.input_parts) {
      if (part.kind !== 'data' || typeof part.data.schema !== 'string') continue;
      const schema = part.data.schema;
      let fields = bySchema.get(schema);
      if (!fields) bySchema.set(schema, (fields = new Map()));
      for (const [pointer, value] of leaves(part.data, '', 0)) {
        if (pointer === '/schema') continue;
        const valueKey = `${typeof value}:${String(value)}`;
        const once = `${schema}\u0000${pointer}\u0000${valueKey}`;
        if (seen.has(once)) continue;
        seen.add(once);
        let values = fields.get(pointer);
        if (!values) fields.set(pointer, (values = new Map()));
        const tally = values.get(valueKey);
        if (tally) {
          tally.count += 1;
          if (run.created_at > tally.last_used_at) tally.last_used_at = run.created_at;
        } else values.set(valueKey, { value, count: 1, last_used_at: run.created_at });
      }
    }
  }
  const out = new Map<string, FieldHistory[]>();
  for (const [schema, fields] of bySchema) {
    const list: FieldHistory[] = [...fields]
      .map(([pointer, values]) => ({ pointer, values: rankUsed([...values.values()]).slice(0, HISTORY_VALUES_PER_FIELD) }))
      .sort((a, b) => weight(b.values) - weight(a.values) || (a.pointer < b.pointer ? -1 : 1))
      .slice(0, HISTORY_FIELDS_PER_CONTRACT);
    out.set(schema, list);
  }
  return out;
}

const weight = (values: UsedValue[]) => values.reduce((n, v) => n + v.count, 0);

/** Most used first; ties go to the most recent, then to the value's text for a stable order. */
function rankUsed(values: Tally[]): UsedValue[] {
  return values.sort(
    (a, b) =>
      b.count - a.count || (a.last_used_at < b.last_used_at ? 1 : a.last_used_at > b.last_used_at ? -1 : 0) || (String(a.value) < String(b.value) ? -1 : 1),
  );
}
