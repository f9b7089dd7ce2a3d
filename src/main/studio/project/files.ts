// The project's files as the studio shows and fingerprints them: sources, the manifest,
// prompts, contracts and docs; never `.env` (secrets), dependencies, VCS or data folders.
import fs from 'node:fs';
import path from 'node:path';

const SHOWN = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|jsx|json|jsonl|md|txt|yaml|yml)$/;
const SKIP_DIRS = new Set(['node_modules', 'out', 'dist', 'coverage', 'test-results']);
/** Files larger than this are listed but not opened, saved or fingerprinted by content. */
export { MAX_SOURCE_BYTES } from '../../../shared/studio-api.ts';

/** Project-relative paths (forward slashes), sorted; `skip` leaves out a path (a folder: all of it). */
export function projectFiles(projectDir: string, skip?: (rel: string) => boolean): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.') || SKIP_DIRS.has(e.name)) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (skip?.(r)) continue;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else if (e.isFile() && SHOWN.test(e.name) && !e.name.endsWith('.d.ts')) out.push(r);
    }
  };
  walk(projectDir, '');
  return out.sort();
}

/** Dataset files (`evals/**`, docs/evaluation.md) are not agent code: a change to them neither
 * reloads the runtime nor enters a run's code fingerprint. */
export const isEvalsPath = (rel: string): boolean => rel === 'evals' || rel.startsWith('evals/');
