// "Did you mean ...?": the closest of a set of names to a misspelt one, by edit distance.
// Hand-written (a dozen lines) rather than a dependency: none of the maintained packages is
// already a direct dependency, and this is all the project needs (docs/decisions.md).

/** Optimal-string-alignment distance: insertions, deletions, substitutions and swaps of two
 * neighbouring characters each cost 1. Case-insensitive, so `InputModes` is 1 from `inputMode`. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  // rows[i][j]: distance between the first i characters of s and the first j of t.
  const rows: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...new Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) rows[0][j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[s.length][t.length];
}

/** The candidate closest to `word`, or undefined when none is close enough to be a likely
 * typo: at most a third of the longer name's characters differ (at least 1, at most 3), and
 * fewer than all of the word's own. Ties go to the earlier candidate. */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === word) continue;
    const distance = editDistance(word, candidate);
    const allowed = Math.min(3, Math.max(1, Math.floor(Math.max(word.length, candidate.length) / 3)));
    if (distance <= allowed && distance < word.length && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `: did you mean 'x'?` when a candidate is close, else an empty string. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const match = nearest(word, candidates);
  return match === undefined ? '' : `: did you mean '${match}'?`;
}
