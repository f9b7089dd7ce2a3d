// Stability over reruns: a run and its reruns (same input, new context), and which parts of
// the answer are identical across all of them and which vary, so a regression can be told
// from an answer that is flaky anyway.
import type { CompareOptions, StabilityReport, Variant } from '../../../shared/compare.ts';
import type { ScoreEntry, TaggedPart } from '../../../shared/playground.ts';
import { canonicalJson, ignoreFilter, leaves, type PathFilter } from './json-diff.ts';
import { dataPartKeys, dataPartsOf, withOccurrences } from './parts.ts';
import { scoreKey } from './scores.ts';

/** Runs compared at most (the original and its newest reruns). */
export const MAX_STABILITY_RUNS = 100;

export interface StabilityRun {
  run_id: string;
  status: string;
  output_parts: TaggedPart[];
  scores: ScoreEntry[];
}

function variants<T>(values: { run_id: string; value: T }[], same: (a: T, b: T) => boolean): Variant<T>[] {
  const out: Variant<T>[] = [];
  for (const { run_id, value } of values) {
    const v = out.find((x) => same(x.value, value));
    if (v) v.run_ids.push(run_id);
    else out.push({ value, run_ids: [run_id] });
  }
  return out;
}

/** Arrays as sets: items sorted by their canonical JSON, so order does not count. */
function normalise(value: unknown, arrays: CompareOptions['arrays']): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => normalise(v, arrays));
    return arrays === 'set' ? items.sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1)) : items;
  }
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, arrays)]));
  return value;
}

function sameValue(tolerance: number) {
  return (a: unknown, b: unknown) => (typeof a === 'number' && typeof b === 'number' ? Math.abs(a - b) <= tolerance : canonicalJson(a) === canonicalJson(b));
}

function dataByKey(parts: TaggedPart[]): Map<string, unknown> {
  const list = dataPartsOf(parts);
  const keys = withOccurrences(dataPartKeys(list));
  return new Map(list.map((p, i) => [keys[i], p.data]));
}

export function stabilityOf(originalRunId: string, runs: StabilityRun[], activeRunIds: string[], options: CompareOptions): StabilityReport {
  const ignored: PathFilter = ignoreFilter(options.ignore);
  const same = sameValue(options.tolerance);
  const status = variants(
    runs.map((r) => ({ run_id: r.run_id, value: r.status })),
    (a, b) => a === b,
  );

  const texts = runs.map((r) => r.output_parts.filter((p) => p.kind === 'text').map((p) => (p.kind === 'text' ? p.text : '')));
  const text = Array.from({ length: Math.max(0, ...texts.map((t) => t.length)) }, (_, index) => {
    const v = variants(
      runs.map((r, i) => ({ run_id: r.run_id, value: texts[i][index] ?? null })),
      (a, b) => a === b,
    );
    return { index, stable: v.length === 1, variants: v };
  });

  const datas = runs.map((r) => dataByKey(r.output_parts));
  const keys = [...new Set(datas.flatMap((d) => [...d.keys()]))];
  const data = keys.map((key) => {
    const perRun = runs.map((r, i) => ({
      run_id: r.run_id,
      leaves: new Map(leaves(normalise(datas[i].get(key), options.arrays)).filter(([p]) => !ignored(p))),
    }));
    const paths = [...new Set(perRun.flatMap((r) => [...r.leaves.keys()]))];
    const varying: { path: string; variants: Variant<unknown>[] }[] = [];
    let stablePaths = 0;
    for (const path of paths) {
      const v = variants(
        perRun.map((r) => ({ run_id: r.run_id, value: r.leaves.has(path) ? r.leaves.get(path) : undefined })),
        (a, b) => (a === undefined || b === undefined ? a === b : same(a, b)),
      );
      if (v.length === 1) stablePaths += 1;
      else varying.push({ path, variants: v.map((x) => ({ ...x, value: x.value === undefined ? null : x.value })) });
    }
    return { key, stable: varying.length === 0, stable_paths: stablePaths, varying };
  });

  const evaluators = new Map<string, string>();
  for (const r of runs) for (const s of r.scores) evaluators.set(scoreKey(s), s.evaluator);
  const scores = [...evaluators].map(([key, evaluator]) => {
    const values = runs.map((r) => {
      const s = r.scores.find((x) => scoreKey(x) === key);
      return { run_id: r.run_id, score: typeof s?.score === 'number' ? s.score : null };
    });
    const numbers = values.map((v) => v.score).filter((n): n is number => n !== null);
    const min = numbers.length ? Math.min(...numbers) : null;
    const max = numbers.length ? Math.max(...numbers) : null;
    const stable = numbers.length === values.length ? max! - min! <= options.tolerance : numbers.length === 0;
    return { evaluator, stable, min, max, values };
  });

  return {
    original_run_id: originalRunId,
    run_ids: runs.map((r) => r.run_id),
    active_run_ids: activeRunIds,
    options,
    stable: status.length === 1 && text.every((t) => t.stable) && data.every((d) => d.stable) && scores.every((s) => s.stable),
    status: { stable: status.length === 1, variants: status },
    text,
    data,
    scores,
  };
}
