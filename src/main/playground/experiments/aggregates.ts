// An experiment's aggregates (docs/playground-api.md, "Datasets and experiments"): per
// assertion label the pass/fail/skipped/error counts, per evaluator the score statistics and
// a 10-bin histogram, the latency percentiles and histogram, and each case's pass rate.
import type { CasePassRate, ExperimentAggregates, Histogram } from '../../../shared/experiments.ts';
import type { CaseRecord } from './store.ts';

export const HISTOGRAM_BINS = 10;

/** The value at quantile q (0..1) of sorted values, nearest rank. */
export function quantile(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

/** Ten equal-width bins over [min, max]; the max falls in the last bin; all in the first
 * when every value is the same. */
export function histogram(values: readonly number[]): Histogram | null {
  if (values.length === 0) return null;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const counts = new Array<number>(HISTOGRAM_BINS).fill(0);
  const width = (max - min) / HISTOGRAM_BINS;
  for (const v of values) counts[width === 0 ? 0 : Math.min(HISTOGRAM_BINS - 1, Math.floor((v - min) / width))]! += 1;
  return { min, max, counts };
}

const ENDED = new Set(['passed', 'failed', 'error']);

/** Per case id, in first-seen order: its runs, how many passed and the pass rate of the ended ones. */
export function casePassRates(cases: readonly { case_id: string; status: string }[]): CasePassRate[] {
  const by = new Map<string, { runs: number; passed: number; ended: number }>();
  for (const c of cases) {
    const e = by.get(c.case_id) ?? { runs: 0, passed: 0, ended: 0 };
    e.runs += 1;
    if (c.status === 'passed') e.passed += 1;
    if (ENDED.has(c.status)) e.ended += 1;
    by.set(c.case_id, e);
  }
  return [...by].map(([case_id, e]) => ({ case_id, runs: e.runs, passed: e.passed, pass_rate: e.ended ? e.passed / e.ended : null }));
}

export function aggregates(cases: readonly CaseRecord[]): ExperimentAggregates {
  const assertions = new Map<string, { label: string; type: string; pass: number; fail: number; skipped: number; error: number }>();
  const scores = new Map<string, number[]>();
  const latencies: number[] = [];
  for (const c of cases) {
    for (const a of c.assertions) {
      const e = assertions.get(a.label) ?? { label: a.label, type: a.type, pass: 0, fail: 0, skipped: 0, error: 0 };
      e[a.status] += 1;
      assertions.set(a.label, e);
    }
    for (const s of c.scores) {
      const list = scores.get(s.evaluator) ?? [];
      if (typeof s.score === 'number') list.push(s.score);
      scores.set(s.evaluator, list);
    }
    if (ENDED.has(c.status) && c.duration_ms !== null) latencies.push(c.duration_ms);
  }
  const evaluators = [...scores].map(([evaluator, values]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      evaluator,
      count: values.length,
      mean: values.length ? values.reduce((a, b) => a + b, 0) / values.length : null,
      min: sorted[0] ?? null,
      max: sorted[sorted.length - 1] ?? null,
      p50: quantile(sorted, 0.5),
      histogram: histogram(values),
    };
  });
  const sortedLat = [...latencies].sort((a, b) => a - b);
  return {
    assertions: [...assertions.values()],
    evaluators: evaluators.sort((a, b) => a.evaluator.localeCompare(b.evaluator)),
    latency: {
      count: sortedLat.length,
      p50: quantile(sortedLat, 0.5),
      p95: quantile(sortedLat, 0.95),
      max: sortedLat[sortedLat.length - 1] ?? null,
      histogram: histogram(latencies),
    },
    cases: casePassRates(cases),
  };
}

/** Mean score per evaluator over a case's runs. */
export function meanScores(cases: readonly { scores: readonly { evaluator: string; score: number | null }[] }[]): Record<string, number> {
  const sums = new Map<string, { sum: number; n: number }>();
  for (const c of cases)
    for (const s of c.scores) {
      if (typeof s.score !== 'number') continue;
      const e = sums.get(s.evaluator) ?? { sum: 0, n: 0 };
      e.sum += s.score;
      e.n += 1;
      sums.set(s.evaluator, e);
    }
  return Object.fromEntries([...sums].map(([k, v]) => [k, v.sum / v.n]));
}
