// A code file's diff between two runs, shaped like a text part's comparison (GET /compare's
// `output.text[]`) so the compare view shows it the same way, inline or side by side. The
// contents come from GET /api/project/file?run= (docs/studio-api.md); null is a file the run
// did not have (added or removed).
import { formatPatch, structuredPatch } from 'diff';
import type { TextComparison } from '../../../shared/compare.ts';

/** Above this many characters on either side the line diff is skipped: shown as replaced. */
const LINE_DIFF_MAX = 400_000;

export function fileComparison(left: string | null, right: string | null): TextComparison {
  const status = left === null ? 'added' : right === null ? 'removed' : left === right ? 'equal' : 'changed';
  const out: TextComparison = {
    index: 0,
    status,
    left,
    right,
    unified_diff: '',
    lines_added: 0,
    lines_removed: 0,
    diff_timed_out: false,
    left_partial: false,
    right_partial: false,
  };
  if (status === 'equal') return out;
  const a = left ?? '';
  const b = right ?? '';
  const tooLarge = a.length > LINE_DIFF_MAX || b.length > LINE_DIFF_MAX;
  const patch = structuredPatch('left', 'right', tooLarge ? '' : a, tooLarge ? '' : b, undefined, undefined, { context: 3 });
  if (tooLarge) {
    // One hunk replacing every line: still readable, and cheap.
    const lines = (s: string) => (s === '' ? [] : s.replace(/\n$/, '').split('\n'));
    const [removed, added] = [lines(a), lines(b)];
    patch.hunks = [
      {
        oldStart: 1,
        oldLines: removed.length,
        newStart: 1,
        newLines: added.length,
        lines: [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)],
      },
    ];
    out.diff_timed_out = true;
  }
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) out.lines_added += 1;
      else if (line.startsWith('-')) out.lines_removed += 1;
    }
  }
  out.unified_diff = formatPatch(patch);
  return out;
}
