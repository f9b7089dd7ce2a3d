import { describe, expect, it } from 'vitest';
import { changedFileProblem, normaliseChangedFile } from './paths.ts';

describe('changed_files paths', () => {
  it.each(['agent.json', 'src/graph.ts', './prompts/system.md', 'a/./b.ts', 'dir\\file.ts', 'with..dots.ts'])('accepts %s', (p) => {
    expect(changedFileProblem(p)).toBeNull();
  });

  it.each([
    ['/etc/passwd', /absolute/],
    ['C:\\Windows\\x', /absolute/],
    ['c:/x', /absolute/],
    ['\\\\server\\share', /absolute/],
    ['../outside.ts', /\.\./],
    ['src/../../x', /\.\./],
    ['src\\..\\..\\x', /\.\./],
    ['', /empty/],
  ])('refuses %s', (p, why) => {
    expect(changedFileProblem(p)).toMatch(why);
  });

  it('normalises separators and dot segments', () => {
    expect(normaliseChangedFile('./src\\graph.ts')).toBe('src/graph.ts');
    expect(normaliseChangedFile('a//b/./c')).toBe('a/b/c');
  });
});
