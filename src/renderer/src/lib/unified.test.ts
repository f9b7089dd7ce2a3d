import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { inlineRows, splitRows } from './unified.ts';

const patch = createTwoFilesPatch('left', 'right', 'alpha\nthe order is late\ngamma\n', 'alpha\nthe order is shipped\ngamma\ndelta\n');

describe('unified diff rows', () => {
  it('gives inline rows with line numbers, removed before added, and word highlights', () => {
    const rows = inlineRows(patch);
    expect(rows.map((r) => r.kind)).toEqual(['hunk', 'context', 'removed', 'added', 'context', 'added']);
    const removed = rows[2] as Extract<(typeof rows)[number], { kind: 'removed' }>;
    const added = rows[3] as Extract<(typeof rows)[number], { kind: 'added' }>;
    expect(removed.cell.line).toBe(2);
    expect(removed.cell.segments.filter((s) => s.changed).map((s) => s.text)).toEqual(['late']);
    expect(added.cell.segments.filter((s) => s.changed).map((s) => s.text)).toEqual(['shipped']);
    expect(added.cell.segments.map((s) => s.text).join('')).toBe('the order is shipped');
    expect(rows[5]).toMatchObject({ kind: 'added', cell: { line: 4, text: 'delta', segments: [{ text: 'delta', changed: true }] } });
  });

  it('gives split rows pairing the replaced line with its replacement', () => {
    const rows = splitRows(patch);
    expect(rows.filter((r) => r.kind === 'pair').map((r) => (r.kind === 'pair' ? [r.change, r.left?.line ?? null, r.right?.line ?? null] : null))).toEqual([
      ['context', 1, 1],
      ['changed', 2, 2],
      ['context', 3, 3],
      ['added', null, 4],
    ]);
  });

  it('answers no rows for an empty diff', () => {
    expect(inlineRows('')).toEqual([]);
  });
});
