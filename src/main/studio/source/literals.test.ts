import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLiterals, replaceLiteral } from './literals.ts';

describe('prompt literals in the source', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'literals-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds string and plain template literals with the text, not templates with substitutions, comments or node_modules', async () => {
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'node_modules', 'x'), { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'src', 'a.ts'),
      'const a = "Be brief.";\n// Be brief.\nconst b = `Be brief.`;\nconst c = `Be ${"brief"}.`;\nconst d = \'It\\\'s "ok"\';\n',
    );
    fs.writeFileSync(path.join(dir, 'node_modules', 'x', 'i.ts'), 'export const z = "Be brief.";\n');
    const found = await findLiterals(dir, 'Be brief.');
    expect(found.map((f) => [f.path, f.line, f.kind])).toEqual([
      ['src/a.ts', 1, 'string'],
      ['src/a.ts', 3, 'template'],
    ]);
    expect((await findLiterals(dir, 'It\'s "ok"')).map((f) => f.line)).toEqual([5]);
  });

  it('replaces the literal nearest the line, keeping its quotes, escaping what it must', () => {
    const src = 'const a = \'Hi\';\nconst b = "Hi";\n';
    expect(replaceLiteral('f.ts', src, 'Hi', "It's", 2)).toBe("const a = 'Hi';\nconst b = \"It's\";\n");
    expect(replaceLiteral('f.ts', src, 'Hi', "It's", 1)).toBe("const a = 'It\\'s';\nconst b = \"Hi\";\n");
    expect(replaceLiteral('f.ts', src, 'Hi', 'a\nb`${x}\\', 1)).toBe('const a = `a\nb\\`\\${x}\\\\`;\nconst b = "Hi";\n');
    expect(replaceLiteral('f.ts', src, 'Bye', 'x')).toBeNull();
  });
});
