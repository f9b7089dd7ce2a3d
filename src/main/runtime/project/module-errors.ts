// Why a project module did not load, as a diagnostic that says what to fix: a project read as
// CommonJS (no `"type": "module"`), CommonJS names in an ES module, a dependency that is not
// installed, an import of a file that does not exist, or a syntax error at its line.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { nearest } from '../../common/nearest.ts';
import type { Diagnostic } from './diagnostics.ts';

interface LoadError {
  name?: string;
  code?: string;
  message?: string;
  stack?: string;
  /** esbuild (through tsx) reports syntax errors with a location. */
  errors?: { text: string; location?: { file: string; line: number; column: number } }[];
}

/** The diagnostic for `err`, thrown while importing `file` (project-relative) of the project in `dir`. */
export function moduleLoadDiagnostic(dir: string, file: string, err: unknown): Diagnostic {
  const e = (err ?? {}) as LoadError;
  const first = e.errors?.[0];
  if (first?.location) {
    return {
      file: relativeTo(dir, path.resolve(dir, first.location.file)) || file,
      line: first.location.line,
      column: first.location.column + 1,
      message: first.text,
    };
  }
  return (
    moduleFormatDiagnostic(dir, file, e) ??
    commonJsNameDiagnostic(dir, e) ??
    notFoundDiagnostic(dir, e) ??
    locatedDiagnostic(dir, e) ?? { file, message: `cannot load module: ${String(e.message ?? err)}` }
  );
}

const PARSED_AS_COMMONJS_CODES = new Set(['ERR_REQUIRE_CYCLE_MODULE', 'ERR_REQUIRE_ESM', 'ERR_REQUIRE_ASYNC_MODULE']);

/** ESM syntax read as CommonJS: without `"type": "module"` in the nearest package.json, Node
 * loads `.ts` and `.js` files as CommonJS and fails on the first `import`, `export` or type. */
function moduleFormatDiagnostic(dir: string, file: string, e: LoadError): Diagnostic | null {
  const message = e.message ?? '';
  const outsideModule = /Cannot use import statement outside a module|Unexpected token 'export'/.test(message);
  if (!(e.name === 'SyntaxError' || outsideModule || PARSED_AS_COMMONJS_CODES.has(e.code ?? ''))) return null;
  if (/\.m[jt]s$/.test(file)) return null; // ES modules by their extension
  const pkg = nearestPackageJson(path.resolve(dir, file));
  if (!pkg) {
    return {
      file: 'package.json',
      message:
        'the project has no package.json, so Node loads its .ts files as CommonJS and cannot read their import and export statements: ' +
        'create one with "type": "module" (run `npm init -y && npm pkg set type=module` in the project folder)',
    };
  }
  if (pkg.type === 'module') {
    if (!outsideModule) return null;
    return { file, message: `${file} is loaded as CommonJS: give files with import and export statements the .ts or .mts extension` };
  }
  const has = pkg.type === undefined ? 'has no "type": "module"' : `has "type": ${JSON.stringify(pkg.type)}`;
  return {
    file: relativeTo(dir, pkg.file),
    message:
      `package.json ${has}, so Node loads the project's .ts files as CommonJS and cannot read their import and export statements: ` +
      'set "type": "module" (run `npm pkg set type=module` in the project folder)',
  };
}

function nearestPackageJson(from: string): { file: string; type: unknown } | null {
  for (let d = path.dirname(from); ; d = path.dirname(d)) {
    const file = path.join(d, 'package.json');
    if (fs.existsSync(file)) {
      try {
        return { file, type: (JSON.parse(fs.readFileSync(file, 'utf8')) as { type?: unknown }).type };
      } catch {
        return { file, type: undefined };
      }
    }
    if (path.dirname(d) === d) return null;
  }
}

const COMMONJS_FIXES: Record<string, string> = {
  require: "use import instead of require() (import x from 'pkg'), or createRequire(import.meta.url) from node:module",
  module: 'use export instead of module.exports',
  exports: 'use export instead of exports.name = ...',
  __dirname: 'use import.meta.dirname instead',
  __filename: 'use import.meta.filename instead',
};

/** `require is not defined in ES module scope`: CommonJS code in a project of ES modules. */
function commonJsNameDiagnostic(dir: string, e: LoadError): Diagnostic | null {
  const name = /^(require|module|exports|__dirname|__filename) is not defined/.exec(e.message ?? '')?.[1];
  if (!name) return null;
  const at = stackPosition(dir, e.stack);
  return {
    file: at?.file ?? '.',
    ...(at ? { line: at.line, column: at.column } : {}),
    message: `${name} is CommonJS, but the project's files are ES modules ("type": "module"): ${COMMONJS_FIXES[name]}`,
  };
}

/** ERR_MODULE_NOT_FOUND: a package that is not installed, or an import of a missing file. */
function notFoundDiagnostic(dir: string, e: LoadError): Diagnostic | null {
  const message = e.message ?? '';
  const pkg = /Cannot find package '([^']+)' imported from (.+)$/.exec(message);
  if (pkg) {
    const name = packageName(pkg[1]);
    const importer = fileOf(pkg[2]);
    const rel = relativeTo(dir, importer);
    return {
      file: rel,
      ...importLine(importer, (spec) => spec === name || spec.startsWith(`${name}/`)),
      message:
        name === 'agent-studio'
          ? `package 'agent-studio' has no such entry (imported from ${rel}): Agent Studio provides \`agent-studio/sdk\` to the project when it runs it (it is not a dependency of the project): import from 'agent-studio/sdk'`
          : `package '${name}' is not installed (imported from ${rel}): the project needs its own dependencies; run \`npm install ${name}\` in the project folder`,
    };
  }
  const missing = /Cannot find module '([^']+)' imported from (.+)$/.exec(message);
  if (missing && path.isAbsolute(fileOf(missing[1]))) {
    const target = fileOf(missing[1]);
    const importer = fileOf(missing[2]);
    const rel = relativeTo(dir, importer);
    const siblings = fs.existsSync(path.dirname(target)) ? fs.readdirSync(path.dirname(target)) : [];
    const near = nearest(path.basename(target), siblings);
    const fix = near ? `did you mean ${relativeTo(dir, path.join(path.dirname(target), near))}?` : 'check the import path';
    return {
      file: rel,
      ...importLine(importer, (spec) => spec.startsWith('.') && sameModule(path.resolve(path.dirname(importer), spec), target)),
      message: `${rel} imports ${relativeTo(dir, target)}, which does not exist: ${fix}`,
    };
  }
  return null;
}

/** The package of a bare specifier: `@langchain/langgraph/web` → `@langchain/langgraph`. */
export function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** The line and column of the import in `file` whose specifier `wanted` accepts. */
function importLine(file: string, wanted: (specifier: string) => boolean): { line?: number; column?: number } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    for (const m of line.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])([^'"]+)\1/g)) {
      if (wanted(m[2])) return { line: i + 1, column: (m.index ?? 0) + m[0].lastIndexOf(m[1] + m[2]) + 1 };
    }
  }
  return {};
}

function sameModule(a: string, b: string): boolean {
  const strip = (p: string) => p.replace(/\.[cm]?[jt]sx?$/, '');
  return a === b || strip(a) === strip(b);
}

/** A position from the stack's first frame inside the project (tsx keeps TypeScript lines). */
function stackPosition(dir: string, stack: string | undefined): { file: string; line: number; column: number } | null {
  for (const m of (stack ?? '').matchAll(/\(?((?:file:\/\/)?\/[^\s():]+?\.(?:[cm]?[jt]sx?))(?:\?[^\s:)]*)?:(\d+):(\d+)\)?/g)) {
    const file = fileOf(m[1]);
    if (file.startsWith(`${dir}${path.sep}`) && !file.includes(`${path.sep}node_modules${path.sep}`)) {
      return { file: relativeTo(dir, file), line: Number(m[2]), column: Number(m[3]) };
    }
  }
  return null;
}

/** A transform error (`file.ts:3:4: ERROR: ...`) or an error thrown at a project line. */
function locatedDiagnostic(dir: string, e: LoadError): Diagnostic | null {
  const transform = /([^\s:]+\.(?:ts|mts|cts|tsx|js)):(\d+):(\d+): ERROR: (.+)/.exec(e.message ?? '');
  if (transform) {
    return { file: relativeTo(dir, path.resolve(dir, transform[1])), line: Number(transform[2]), column: Number(transform[3]) + 1, message: transform[4] };
  }
  const at = stackPosition(dir, e.stack);
  return at ? { ...at, message: String(e.message) } : null;
}

/** A path from an error message, which may be a file URL with the loader's query. */
function fileOf(text: string): string {
  const trimmed = text.trim();
  if (!trimmed.startsWith('file:')) return trimmed.replace(/\?.*$/, '');
  const url = new URL(trimmed);
  url.search = '';
  return fileURLToPath(url);
}

function relativeTo(dir: string, abs: string): string {
  return path.relative(dir, abs).split(path.sep).join('/');
}
