// The files and folders agent.json names must exist. Checked on the raw manifest, so a missing
// file is reported in the same pass as the manifest's other problems, even when some other
// field is invalid (one fix at a time is slow).
import fs from 'node:fs';
import path from 'node:path';
import type { FieldProblem } from './manifest-issues.ts';

type Segment = string | number;

interface Reference {
  path: Segment[];
  rel: string;
  /** What the file is, for the message: `graph entry src/graph.ts not found`. */
  what: string;
  folder?: boolean;
}

/** A problem for every named file (or folder) that does not exist in `dir`. */
export function missingFiles(dir: string, raw: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const ref of references(raw)) {
    // Absolute paths and `..` are the schema's problem, reported there.
    if (path.isAbsolute(ref.rel) || ref.rel.split(/[\\/]/).includes('..')) continue;
    const abs = path.join(dir, ref.rel);
    const stat = fs.statSync(abs, { throwIfNoEntry: false });
    if (!stat) out.push({ path: ref.path, message: `${ref.what} ${ref.rel} not found${ref.folder ? '' : nearbyHint(abs)}` });
    else if (ref.folder && !stat.isDirectory()) out.push({ path: ref.path, message: `${ref.what} ${ref.rel} is not a folder` });
    else if (!ref.folder && !stat.isFile()) out.push({ path: ref.path, message: `${ref.what} ${ref.rel} is not a file` });
  }
  return out;
}

function references(raw: unknown): Reference[] {
  const m = asObject(raw);
  const refs: Reference[] = [];
  const add = (p: Segment[], value: unknown, what: string, folder = false) => {
    if (typeof value === 'string' && value) refs.push({ path: p, rel: value, what, folder });
  };
  add(['graph', 'entry'], asObject(m.graph).entry, 'graph entry');
  asArray(m.inputContracts).forEach((c, i) => add(['inputContracts', i, 'file'], asObject(c).file, 'contract file'));
  asArray(m.evaluators).forEach((e, i) => add(['evaluators', i, 'module'], asObject(e).module, 'evaluator module'));
  for (const [name, rel] of Object.entries(asObject(m.prompts))) add(['prompts', name], rel, 'prompt file');
  asArray(m.mcpServers).forEach((s, i) => add(['mcpServers', i, 'cwd'], asObject(s).cwd, 'MCP server folder', true));
  return refs;
}

/** ` (there is graph.mts)` when a file differing only in its extension exists. */
function nearbyHint(abs: string): string {
  const base = abs.replace(/\.[cm]?[jt]sx?$/, '');
  if (base === abs) return '';
  const found = ['.ts', '.mts', '.tsx', '.js', '.mjs'].map((ext) => base + ext).find((p) => p !== abs && fs.existsSync(p));
  return found ? ` (there is ${path.basename(found)})` : '';
}

function asObject(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}
