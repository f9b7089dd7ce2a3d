// Text part comparison: both originals and a unified line diff from the `diff` package.
// A line diff of two very different large texts can take long (Myers is O(ND)); it is given
// a time budget, after which the comparison reports the whole text as replaced.
import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import type { PairStatus, TextComparison } from '../../../shared/compare.ts';

/** Time budget of one line diff. */
export const TEXT_DIFF_TIMEOUT_MS = 150;

export interface TextSide {
  text: string;
  partial: boolean;
}

const lineCount = (s: string): number => (s === '' ? 0 : s.split('\n').length - (s.endsWith('\n') ? 1 : 0));

function wholeReplacement(left: string, right: string): StructuredPatch {
  const lines = (s: string) => (s === '' ? [] : s.replace(/\n$/, '').split('\n'));
  const removed = lines(left);
  const added = lines(right);
  return {
    oldFileName: 'left',
    newFileName: 'right',
    oldHeader: undefined,
    newHeader: undefined,
    hunks: [
      {
        oldStart: removed.length ? 1 : 0,
        oldLines: removed.length,
        newStart: added.length ? 1 : 0,
        newLines: added.length,
        lines: [...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`)],
      },
    ],
  };
}

export function compareText(index: number, left: TextSide | null, right: TextSide | null): TextComparison {
  const l = left?.text ?? null;
  const r = right?.text ?? null;
  const status: PairStatus = l === null ? 'added' : r === null ? 'removed' : l === r ? 'equal' : 'changed';
  const base: TextComparison = {
    index,
    status,
    left: l,
    right: r,
    unified_diff: '',
    lines_added: 0,
    lines_removed: 0,
    diff_timed_out: false,
    left_partial: left?.partial ?? false,
    right_partial: right?.partial ?? false,
  };
  if (status === 'equal') return base;
  const a = l ?? '';
  const b = r ?? '';
  let patch = structuredPatch('left', 'right', a, b, undefined, undefined, { context: 3, timeout: TEXT_DIFF_TIMEOUT_MS });
  if (!patch) {
    base.diff_timed_out = true;
    patch = wholeReplacement(a, b);
  }
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) base.lines_added += 1;
      else if (line.startsWith('-')) base.lines_removed += 1;
    }
  }
  base.unified_diff = formatPatch(patch);
  if (base.diff_timed_out) {
    base.lines_added = lineCount(b);
    base.lines_removed = lineCount(a);
  }
  return base;
}
