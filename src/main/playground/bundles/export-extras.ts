// The optional bundle keys of D-97 on export (docs/playground-api.md, "POST /bundles/export"):
// a run's blobs beyond its file parts (recorded bodies), the files beside the exported
// datasets, and the debugger origins (fork, edit, branch) whose other end is in the bundle too.
// Each is written only when it has something to say, so a bundle without them keeps its bytes.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { BundleDatasetFile } from '../../../shared/bundle-extras.ts';
import type { BundleRun, BundleSession } from '../../../shared/bundle.ts';
import type { RunEdit, RunFork, Session } from '../../../shared/playground.ts';
import { DATASETS_DIR } from '../evals/dataset-file.ts';
import type { RunRecord } from '../store/store.ts';

/** A file beside a dataset, with where its bytes are. */
export interface DatasetFileEntry extends BundleDatasetFile {
  abs: string;
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const MAX_FILES = 100_000;

/** The sha256 (hex) of a file's bytes, read 1 MiB at a time. */
export function sha256Of(file: string): string {
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1024 * 1024);
    for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}

/** The regular files under `evals/<name>.files/` of each dataset (links and names an import
 * would refuse left out), sorted by path. */
export function listDatasetFiles(projectDir: string, names: readonly string[]): DatasetFileEntry[] {
  const out: DatasetFileEntry[] = [];
  const walk = (dataset: string, rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(projectDir, DATASETS_DIR, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!SEGMENT.test(e.name) || out.length >= MAX_FILES) continue;
      const child = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(dataset, child);
      else if (e.isFile()) {
        const abs = path.join(projectDir, DATASETS_DIR, child);
        out.push({ dataset, path: child, sha256: sha256Of(abs), size: fs.statSync(abs).size, abs });
      }
    }
  };
  for (const name of names) walk(name, `${name}.files`);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The session's branch origin when its session, run and root are all exported. */
export function branchOf(s: Session, sessions: ReadonlySet<string>, runs: ReadonlySet<string>): Pick<BundleSession, 'branch_of'> {
  const b = s.branch_of;
  if (!b || !sessions.has(b.session_id) || !sessions.has(b.root_session_id) || !runs.has(b.run_id)) return {};
  return { branch_of: { session_id: b.session_id, run_id: b.run_id, root_session_id: b.root_session_id } };
}

/** The run's optional keys: linked blobs, fork origin (when the origin run is exported), edit. */
export function runExtras(r: RunRecord, linked: readonly string[], exported: ReadonlySet<string>): Pick<BundleRun, 'linked_blobs' | 'fork' | 'edit'> {
  const out: Pick<BundleRun, 'linked_blobs' | 'fork' | 'edit'> = {};
  if (linked.length) out.linked_blobs = [...linked];
  if (r.forked_from) {
    const f = JSON.parse(r.forked_from) as RunFork;
    if (exported.has(f.run_id))
      out.fork = { run_id: f.run_id, session_id: f.session_id, checkpoint_id: f.checkpoint_id, checkpoint_ns: f.checkpoint_ns, node: f.node, patch: f.patch };
  }
  if (r.edited_state) {
    const e = JSON.parse(r.edited_state) as RunEdit;
    out.edit = { checkpoint_id: e.checkpoint_id, node: e.node, edited_checkpoint_id: e.edited_checkpoint_id, patch: e.patch };
  }
  return out;
}
