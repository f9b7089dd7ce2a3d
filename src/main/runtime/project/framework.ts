// The framework a project's graph runs on: the runtime's own SDK, LangGraph and LangChain
// (generation-hooks.mjs resolves the project's imports of them to the runtime's copies). A
// project declares them in its package.json for its editor and type checks; here its
// declared ranges are checked against what it will really run on, with the fix to apply
// (docs/project-format.md, "Dependencies").
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import semver from 'semver';
import type { ProjectDiagnostic as Diagnostic } from '../../../shared/runtime-contract.ts';

/** Packages that exist once in a runtime process, whoever imports them. */
export const SHARED_PACKAGES = ['agent-studio', '@langchain/langgraph', '@langchain/langgraph-checkpoint', '@langchain/core'];

/** The packages whose version a project must agree with, and the major the runtime supports. */
const CHECKED = ['@langchain/langgraph', '@langchain/core'] as const;

const require = createRequire(import.meta.url);

/** The version of a framework package the runtime runs projects on. */
export function runtimeVersion(name: string): string {
  return (require(`${name}/package.json`) as { version: string }).version;
}

/** The supported range: the runtime's major, up to the version it brings. */
export function supportedRange(name: string): string {
  const v = runtimeVersion(name);
  return `>=${semver.major(v)}.0.0 <=${v}`;
}

/**
 * Problems with the framework versions the project's package.json asks for: a range that
 * does not admit the version the runtime runs the graph on. Ranges that are not semver
 * (a tarball, a git URL, `workspace:`) are left alone.
 */
export function frameworkDiagnostics(dir: string): Diagnostic[] {
  const file = path.join(dir, 'package.json');
  let pkg: { dependencies?: Record<string, string>; devDependencies?: Record<string, string>; peerDependencies?: Record<string, string> };
  try {
    pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return []; // no package.json, or not JSON: reported where the modules load
  }
  const out: Diagnostic[] = [];
  for (const name of CHECKED) {
    const declared = pkg.dependencies?.[name] ?? pkg.devDependencies?.[name] ?? pkg.peerDependencies?.[name];
    if (!declared || semver.validRange(declared) === null) continue;
    const runs = runtimeVersion(name);
    if (semver.satisfies(runs, declared, { includePrerelease: true })) continue;
    out.push({
      file: 'package.json',
      field: `dependencies.${name}`,
      message:
        `${name} ${declared} does not include ${runs}, the version Agent Studio runs the graph on (supported: ${supportedRange(name)}): ` +
        `run \`npm install ${name}@${runs}\` in the project folder`,
    });
  }
  return out;
}
