// A unified diff (from GET /compare) as rows for the compare view: inline (one column) and
// split (left and right side by side), a removed line paired with the added line that
// replaced it getting word-level highlights (the `diff` package's word diff).
import { diffWordsWithSpace, parsePatch } from 'diff';

export interface Segment {
  text: string;
  /** Part of the line that changed. */
  changed: boolean;
}

export interface Cell {
  line: number;
  text: string;
  segments: Segment[];
}

export type InlineRow =
  | { kind: 'hunk'; header: string }
  | { kind: 'context'; left: number; right: number; text: string }
  | { kind: 'removed'; cell: Cell }
  | { kind: 'added'; cell: Cell };

export type SplitRow =
  { kind: 'hunk'; header: string } | { kind: 'pair'; left: Cell | null; right: Cell | null; change: 'context' | 'changed' | 'removed' | 'added' };

/** Lines longer than this are marked changed as a whole (a word diff of them costs too much). */
const WORD_DIFF_MAX = 2000;

function words(a: string, b: string): [Segment[], Segment[]] {
  if (a.length > WORD_DIFF_MAX || b.length > WORD_DIFF_MAX) return [[{ text: a, changed: true }], [{ text: b, changed: true }]];
  const left: Segment[] = [];
  const right: Segment[] = [];
  for (const part of diffWordsWithSpace(a, b)) {
    if (!part.added) left.push({ text: part.value, changed: part.removed });
    if (!part.removed) right.push({ text: part.value, changed: part.added });
  }
  return [left, right];
}

const whole = (line: number, text: string): Cell => ({ line, text, segments: [{ text, changed: true }] });

interface Block {
  header: string;
  rows: { sign: ' ' | '-' | '+'; text: string; left: number; right: number }[];
}

function blocks(unified: string): Block[] {
  const out: Block[] = [];
  for (const patch of parsePatch(unified)) {
    for (const h of patch.hunks) {
      const block: Block = { header: `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, rows: [] };
      let l = h.oldStart;
      let r = h.newStart;
      for (const raw of h.lines) {
        const sign = raw[0];
        const text = raw.slice(1);
        if (sign === ' ') block.rows.push({ sign, text, left: l++, right: r++ });
        else if (sign === '-') block.rows.push({ sign, text, left: l++, right: r });
        else if (sign === '+') block.rows.push({ sign, text, left: l, right: r++ });
        // '\' (no newline at end of file) carries no line.
      }
      out.push(block);
    }
  }
  return out;
}

/** Runs of removed lines followed by added lines pair up, line by line, for word highlights. */
function changeRuns(rows: Block['rows']): { context?: Block['rows'][number]; removed: Block['rows']; added: Block['rows'] }[] {
  const out: ReturnType<typeof changeRuns> = [];
  let i = 0;
  while (i < rows.length) {
    if (rows[i].sign === ' ') {
      out.push({ context: rows[i], removed: [], added: [] });
      i++;
      continue;
    }
    const removed: Block['rows'] = [];
    const added: Block['rows'] = [];
    while (i < rows.length && rows[i].sign === '-') removed.push(rows[i++]);
    while (i < rows.length && rows[i].sign === '+') added.push(rows[i++]);
    out.push({ removed, added });
  }
  return out;
}

function pairCells(removed: Block['rows'], added: Block['rows']): { left: Cell | null; right: Cell | null }[] {
  const out: { left: Cell | null; right: Cell | null }[] = [];
  for (let k = 0; k < Math.max(removed.length, added.length); k++) {
    const a = removed[k];
    const b = added[k];
    if (a && b) {
      const [ls, rs] = words(a.text, b.text);
      out.push({ left: { line: a.left, text: a.text, segments: ls }, right: { line: b.right, text: b.text, segments: rs } });
    } else out.push({ left: a ? whole(a.left, a.text) : null, right: b ? whole(b.right, b.text) : null });
  }
  return out;
}

export function inlineRows(unified: string): InlineRow[] {
  const rows: InlineRow[] = [];
  for (const block of blocks(unified)) {
    rows.push({ kind: 'hunk', header: block.header });
    for (const run of changeRuns(block.rows)) {
      if (run.context) {
        rows.push({ kind: 'context', left: run.context.left, right: run.context.right, text: run.context.text });
        continue;
      }
      const pairs = pairCells(run.removed, run.added);
      for (const p of pairs) if (p.left) rows.push({ kind: 'removed', cell: p.left });
      for (const p of pairs) if (p.right) rows.push({ kind: 'added', cell: p.right });
    }
  }
  return rows;
}

export function splitRows(unified: string): SplitRow[] {
  const rows: SplitRow[] = [];
  for (const block of blocks(unified)) {
    rows.push({ kind: 'hunk', header: block.header });
    for (const run of changeRuns(block.rows)) {
      if (run.context) {
        const c = run.context;
        const cell = (line: number): Cell => ({ line, text: c.text, segments: [{ text: c.text, changed: false }] });
        rows.push({ kind: 'pair', left: cell(c.left), right: cell(c.right), change: 'context' });
        continue;
      }
      for (const p of pairCells(run.removed, run.added))
        rows.push({ kind: 'pair', ...p, change: p.left && p.right ? 'changed' : p.left ? 'removed' : 'added' });
    }
  }
  return rows;
}
