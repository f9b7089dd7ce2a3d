// Where a prompt's text is written in the project's source, and writing an edited prompt
// back there (docs/playground-api.md, "Playground for one call"; D-101): a string literal or a
// template literal without substitutions whose value is the prompt's text. ts-morph parses
// only the files whose raw text contains a piece of the prompt, so a search over a project
// reads its files once and parses a few. A template with `${...}` is never matched: the sent
// text is its rendering, not its source.
import fs from 'node:fs/promises';
import path from 'node:path';
import { Node, Project, SyntaxKind, type SourceFile } from 'ts-morph';
import type { SourceLiteral } from '../../../shared/call-playground.ts';
import { sha256 } from './analysis.ts';

const SOURCE_EXT = /\.(ts|tsx|mts|cts|js|mjs|cjs|jsx)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'build', 'coverage']);
/** At most this many files are read in one search. */
const MAX_FILES = 5_000;

async function sourceFiles(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (out.length >= MAX_FILES) return;
      if (e.name.startsWith('.')) continue;
      const abs = path.join(dir, e.name);
      if (e.isDirectory() && !SKIPPED_DIRS.has(e.name)) await walk(abs);
      else if (e.isFile() && SOURCE_EXT.test(e.name) && !e.name.endsWith('.d.ts')) out.push(abs);
    }
  };
  await walk(root);
  return out.sort();
}

/** The longest run of the text's characters that a source file holds as they are (no
 * quote, backslash, `$` or line break, which the source escapes). */
function probe(text: string): string {
  return text.split(/["'`\\$\n\r\t]/).reduce((a, b) => (b.length > a.length ? b : a), '');
}

function parse(file: string, content: string): SourceFile {
  return new Project({ useInMemoryFileSystem: true, compilerOptions: { allowJs: true } }).createSourceFile(path.basename(file), content);
}

/** Literals whose value is `text`, in source order. */
function literalsIn(sf: SourceFile, text: string): Node[] {
  return sf
    .getDescendants()
    .filter((n) => (Node.isStringLiteral(n) || Node.isNoSubstitutionTemplateLiteral(n)) && n.getLiteralValue() === text)
    .filter((n) => !n.getParentIfKind(SyntaxKind.ImportDeclaration) && !n.getParentIfKind(SyntaxKind.ExportDeclaration));
}

/** Every string or template literal in the project whose value is `text`. */
export async function findLiterals(projectDir: string, text: string): Promise<SourceLiteral[]> {
  const piece = probe(text);
  const found: SourceLiteral[] = [];
  for (const abs of await sourceFiles(projectDir)) {
    const content = await fs.readFile(abs, 'utf8').catch(() => null);
    if (content === null || (piece && !content.includes(piece))) continue;
    const sf = parse(abs, content);
    for (const n of literalsIn(sf, text)) {
      const { line, column } = sf.getLineAndColumnAtPos(n.getStart());
      found.push({
        path: path.relative(projectDir, abs).split(path.sep).join('/'),
        line,
        column,
        kind: Node.isStringLiteral(n) ? 'string' : 'template',
        sha256: sha256(content),
      });
    }
  }
  return found;
}

/** A template literal's text for `value` (backquotes, backslashes and `${` escaped). */
function templateText(value: string): string {
  return '`' + value.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
}

/** `content` with the literal whose value is `original` (the one nearest `line`) holding
 * `edited`: in its own quotes when the text fits on one line, else as a template literal.
 * Null when the file holds no such literal. */
export function replaceLiteral(file: string, content: string, original: string, edited: string, line?: number): string | null {
  const sf = parse(file, content);
  const candidates = literalsIn(sf, original);
  if (!candidates.length) return null;
  const at = (n: Node) => Math.abs(sf.getLineAndColumnAtPos(n.getStart()).line - (line ?? 0));
  const target = candidates.reduce((a, b) => (at(b) < at(a) ? b : a));
  let replacement: string;
  if (Node.isNoSubstitutionTemplateLiteral(target) || /[\n\r]/.test(edited)) replacement = templateText(edited);
  else {
    const quote = target.getText()[0] === '"' ? '"' : "'";
    replacement = JSON.stringify(edited);
    if (quote === "'") replacement = `'${replacement.slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  }
  return content.slice(0, target.getStart()) + replacement + content.slice(target.getEnd());
}
