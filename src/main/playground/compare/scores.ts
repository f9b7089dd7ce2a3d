// Score comparison (spec 2.6 entries): paired by evaluator, node and scope; every key of
// each entry is kept, unknown ones included.
import type { CodeComparison, CodeFileChange, ScoreComparison } from '../../../shared/compare.ts';
import type { ScoreEntry } from '../../../shared/playground.ts';
import { canonicalJson } from './json-diff.ts';
import { pairByKey } from './parts.ts';

type Entry = ScoreEntry & Record<string, unknown>;

const numberOrNull = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Scores match by evaluator, node and scope. */
export const scoreKey = (e: ScoreEntry): string => [e.evaluator, e.node ?? '', e.scope ?? ''].join('\u0000');

export function compareScores(left: readonly ScoreEntry[], right: readonly ScoreEntry[], tolerance: number): ScoreComparison[] {
  return pairByKey<Entry>(left as Entry[], right as Entry[], (list) => list.map(scoreKey)).map((pair) => {
    const l = pair.left;
    const r = pair.right;
    const any = (l ?? r)!;
    const ls = numberOrNull(l?.score);
    const rs = numberOrNull(r?.score);
    const delta = ls !== null && rs !== null ? rs - ls : null;
    const changed_keys: string[] = [];
    if (l && r) {
      for (const k of new Set([...Object.keys(l), ...Object.keys(r)])) {
        if (k !== 'score' && canonicalJson(l[k]) !== canonicalJson(r[k])) changed_keys.push(k);
      }
    }
    const scoreDiffers = l && r ? (delta !== null ? Math.abs(delta) > tolerance : ls !== rs) : false;
    return {
      evaluator: any.evaluator,
      node: any.node ?? null,
      scope: any.scope ?? null,
      status: !l ? 'added' : !r ? 'removed' : scoreDiffers || changed_keys.some((k) => k !== 'duration_ms') ? 'changed' : 'equal',
      left_score: ls,
      right_score: rs,
      delta,
      left: l,
      right: r,
      changed_keys,
    };
  });
}

/** The files that differ between the code two runs ran with (docs/studio-api.md fingerprint). */
export function compareCode(
  left: { fingerprint: string | null; files: Record<string, string> | null; generation: number | null },
  right: { fingerprint: string | null; files: Record<string, string> | null; generation: number | null },
): CodeComparison {
  const known = left.files !== null && right.files !== null;
  const changed_files: CodeFileChange[] = [];
  if (left.files && right.files) {
    for (const [path, sha] of Object.entries(left.files)) {
      if (!Object.hasOwn(right.files, path)) changed_files.push({ path, change: 'removed' });
      else if (right.files[path] !== sha) changed_files.push({ path, change: 'modified' });
    }
    for (const path of Object.keys(right.files)) if (!Object.hasOwn(left.files, path)) changed_files.push({ path, change: 'added' });
    changed_files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
  // Without both file lists nothing certain can be said: generations restart with the runtime.
  const same = known ? left.fingerprint === right.fingerprint && changed_files.length === 0 : null;
  return {
    known,
    same,
    left_fingerprint: left.fingerprint,
    right_fingerprint: right.fingerprint,
    changed_files,
    left_generation: left.generation,
    right_generation: right.generation,
  };
}
