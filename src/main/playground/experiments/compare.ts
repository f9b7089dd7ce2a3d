// Two experiments side by side (docs/playground-api.md, "Datasets and experiments"): cases
// paired by id, each improved / regressed / unchanged / new / removed, first by pass rate,
// then by the mean evaluator scores; and the code files that differ between the two.
import type { CaseVerdict, CompareCase, ExperimentCompare, ExperimentSummary } from '../../../shared/experiments.ts';
import { casePassRates, meanScores } from './aggregates.ts';
import { sumTotals, usageDelta, type UsageTotals } from '../../../shared/usage.ts';

/** What a side of the compare needs of an experiment (a stored one, or a results file's). */
export interface CompareSide {
  summary: ExperimentSummary;
  code_files: Record<string, string>;
  cases: readonly {
    case_id: string;
    status: string;
    run_id: string | null;
    scores: readonly { evaluator: string; score: number | null }[];
    assertions: readonly unknown[];
    duration_ms: number | null;
    /** Tokens and cost of the case's runs, when known. */
    usage?: UsageTotals | null;
  }[];
}

/** Score differences smaller than this are noise, not a change. */
const SCORE_EPSILON = 1e-9;

type Side = NonNullable<CompareCase['left']>;

function side(cases: CompareSide['cases']): Side {
  const [rate] = casePassRates(cases);
  return {
    pass_rate: rate?.pass_rate ?? null,
    runs: rate?.runs ?? 0,
    passed: rate?.passed ?? 0,
    run_ids: cases.flatMap((c) => (c.run_id ? [c.run_id] : [])),
    scores: meanScores(cases),
  };
}

function verdict(left: Side, right: Side, deltas: CompareCase['score_deltas']): CaseVerdict {
  if (left.pass_rate !== null && right.pass_rate !== null && left.pass_rate !== right.pass_rate) {
    return right.pass_rate > left.pass_rate ? 'improved' : 'regressed';
  }
  if (left.pass_rate !== right.pass_rate) return left.pass_rate === null ? 'improved' : 'regressed';
  const moved = deltas.filter((d) => d.delta !== null && Math.abs(d.delta) > SCORE_EPSILON);
  if (moved.some((d) => d.delta! < 0)) return 'regressed';
  if (moved.some((d) => d.delta! > 0)) return 'improved';
  return 'unchanged';
}

export function changedCodeFiles(left: Record<string, string>, right: Record<string, string>): ExperimentCompare['changed_files'] {
  const out: ExperimentCompare['changed_files'] = [];
  for (const path of [...new Set([...Object.keys(left), ...Object.keys(right)])].sort()) {
    if (!(path in left)) out.push({ path, change: 'added' });
    else if (!(path in right)) out.push({ path, change: 'removed' });
    else if (left[path] !== right[path]) out.push({ path, change: 'modified' });
  }
  return out;
}

function byCase(cases: CompareSide['cases']): Map<string, CompareSide['cases'][number][]> {
  const m = new Map<string, CompareSide['cases'][number][]>();
  for (const c of cases) m.set(c.case_id, [...(m.get(c.case_id) ?? []), c]);
  return m;
}

export function compareExperiments(l: CompareSide, r: CompareSide): ExperimentCompare {
  const left = byCase(l.cases);
  const right = byCase(r.cases);
  const ids = [...left.keys(), ...[...right.keys()].filter((id) => !left.has(id))];
  const counts: Record<CaseVerdict, number> = { improved: 0, regressed: 0, unchanged: 0, new: 0, removed: 0 };
  const cases = ids.map((case_id): CompareCase => {
    const ls = left.has(case_id) ? side(left.get(case_id)!) : null;
    const rs = right.has(case_id) ? side(right.get(case_id)!) : null;
    const evaluators = [...new Set([...Object.keys(ls?.scores ?? {}), ...Object.keys(rs?.scores ?? {})])].sort();
    const score_deltas = evaluators.map((evaluator) => {
      const a = ls?.scores[evaluator] ?? null;
      const b = rs?.scores[evaluator] ?? null;
      return { evaluator, left: a, right: b, delta: a !== null && b !== null ? b - a : null };
    });
    const v: CaseVerdict = !ls ? 'new' : !rs ? 'removed' : verdict(ls, rs, score_deltas);
    counts[v] += 1;
    const run_compare = ls?.run_ids[0] && rs?.run_ids[0] ? { left: ls.run_ids[0], right: rs.run_ids[0] } : null;
    return { case_id, verdict: v, left: ls, right: rs, score_deltas, run_compare, ...caseUsage(left.get(case_id), right.get(case_id)) };
  });
  return {
    left: l.summary,
    right: r.summary,
    counts,
    cases,
    changed_files: changedCodeFiles(l.code_files, r.code_files),
    same_code: l.summary.code_fingerprint !== null && l.summary.code_fingerprint === r.summary.code_fingerprint,
    same_dataset: l.summary.dataset_hash === r.summary.dataset_hash,
    ...(known(l.cases) || known(r.cases) ? { usage: usageDelta(totalOf(l.cases), totalOf(r.cases)) } : {}),
  };
}

type Cases = CompareSide['cases'];
const known = (cases: Cases | undefined): boolean => !!cases?.some((c) => c.usage);
const totalOf = (cases: Cases | undefined): UsageTotals | null => (known(cases) ? sumTotals(cases!.flatMap((c) => (c.usage ? [c.usage] : []))) : null);

/** A case's tokens and cost on each side (all its repeats), when either side knows them. */
function caseUsage(left: Cases | undefined, right: Cases | undefined): { usage?: CompareCase['usage'] } {
  return known(left) || known(right) ? { usage: usageDelta(totalOf(left), totalOf(right)) } : {};
}
