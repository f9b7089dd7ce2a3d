import { describe, expect, it } from 'vitest';
import { fileComparison } from './fileDiff.ts';
import { inlineRows } from './unified.ts';

describe('a code file diff between two runs', () => {
  it('diffs a changed file line by line, with the changed word marked', () => {
    const c = fileComparison('const a = 1;\nconst msg = "Good news";\nexport {};\n', 'const a = 1;\nconst msg = "Great news";\nexport {};\n');
    expect(c).toMatchObject({ status: 'changed', lines_added: 1, lines_removed: 1, diff_timed_out: false });
    const rows = inlineRows(c.unified_diff);
    expect(rows.map((r) => r.kind)).toEqual(['hunk', 'context', 'removed', 'added', 'context']);
    const added = rows[3] as Extract<(typeof rows)[number], { kind: 'added' }>;
    expect(added.cell.line).toBe(2);
    expect(added.cell.segments.filter((s) => s.changed).map((s) => s.text)).toEqual(['Great']);
  });

  it('shows an added file as all added and a removed one as all removed', () => {
    expect(fileComparison(null, 'a\nb\n')).toMatchObject({ status: 'added', lines_added: 2, lines_removed: 0 });
    expect(fileComparison('a\nb\nc\n', null)).toMatchObject({ status: 'removed', lines_added: 0, lines_removed: 3 });
  });

  it('says the same content is equal, with no diff', () => {
    expect(fileComparison('x\n', 'x\n')).toMatchObject({ status: 'equal', unified_diff: '' });
  });

  it('shows a very large file as replaced as a whole, without a line diff', () => {
    const big = 'x\n'.repeat(250_000);
    const c = fileComparison(big, `${big}y\n`);
    expect(c).toMatchObject({ diff_timed_out: true, lines_removed: 250_000, lines_added: 250_001 });
  });
});
