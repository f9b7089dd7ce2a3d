// The optional bundle keys of D-97 on import (docs/playground-api.md, "POST /bundles/import"):
// linked blobs (a run's recorded bodies), files beside datasets and debugger origins are
// checked with the rest before anything is written. A file beside a dataset is written at its
// path under `evals/` when no file is there, skipped when the file there has the same bytes,
// and a different file there refuses the import (409, nothing written): the author's files
// are never overwritten, and a dataset's cases name their files by that path.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DatasetFilesPlan } from '../../../shared/bundle-extras.ts';
import type { ParsedBundle } from '../../../shared/bundle.ts';
import { PlaygroundError } from '../errors.ts';
import { DATASETS_DIR } from '../evals/dataset-file.ts';
import { pointer, type Staging } from './staging.ts';
import { sha256Of } from './export-extras.ts';

type Add = (path: string, message: string) => void;
const SHA = /^[0-9a-f]{64}$/;

export function checkExtras(b: ParsedBundle, staging: Staging, add: Add): void {
  const inBundle = (sha: string) => staging.keys.blobs.has(sha) || staging.keys.linked_blobs.has(sha);
  const sizeOf = (sha: string) => staging.blob(sha)?.size;
  const used = new Set<string>();
  const runSession = new Map(b.runs.map((r) => [r.run_id, r.session_id]));
  const sessions = new Set(b.sessions.map((s) => s.session_id));
  b.runs.forEach((r, i) => {
    (r.linked_blobs ?? []).forEach((sha, j) => {
      used.add(sha);
      if (!inBundle(sha)) add(`/runs/${i}/linked_blobs/${j}`, `blob ${sha} is not in the bundle`);
    });
    const f = r.fork;
    if (f) {
      const origin = runSession.get(f.run_id);
      if (origin === undefined || f.run_id === r.run_id) add(`/runs/${i}/fork/run_id`, `the fork's origin run '${f.run_id}' is not another run of the bundle`);
      else if (origin !== f.session_id) add(`/runs/${i}/fork/session_id`, `run '${f.run_id}' belongs to session '${origin}', not '${f.session_id}'`);
    }
  });
  b.sessions.forEach((s, i) => {
    const br = s.branch_of;
    if (!br) return;
    const at = `/sessions/${i}/branch_of`;
    if (!sessions.has(br.session_id) || br.session_id === s.session_id)
      add(`${at}/session_id`, `the branch's origin session '${br.session_id}' is not another session of the bundle`);
    if (runSession.get(br.run_id) !== br.session_id) add(`${at}/run_id`, `run '${br.run_id}' is not a run of the bundle in session '${br.session_id}'`);
    if (!sessions.has(br.root_session_id)) add(`${at}/root_session_id`, `session '${br.root_session_id}' is not in the bundle`);
  });
  const datasets = new Set((b.datasets ?? []).map((d) => d.name));
  const paths = new Set<string>();
  (b.dataset_files ?? []).forEach((f, i) => {
    const at = `/dataset_files/${i}`;
    used.add(f.sha256);
    if (!datasets.has(f.dataset)) add(`${at}/dataset`, `dataset '${f.dataset}' is not in the bundle`);
    if (paths.has(f.path)) add(`${at}/path`, `'${f.path}' appears twice`);
    paths.add(f.path);
    if (!inBundle(f.sha256)) add(`${at}/sha256`, `the file's bytes (blob ${f.sha256}) are not in the bundle`);
    else if (sizeOf(f.sha256) !== undefined && sizeOf(f.sha256) !== f.size)
      add(`${at}/size`, `the file says ${f.size} bytes, its blob has ${sizeOf(f.sha256)}`);
  });
  for (const sha of staging.keys.linked_blobs) {
    if (SHA.test(sha) && !used.has(sha)) add(`/linked_blobs${pointer([sha])}`, 'no run or dataset file of the bundle uses this blob');
  }
}

// ---- files beside datasets ----------------------------------------------------------------

export interface DatasetFileWrites {
  plan: DatasetFilesPlan;
  /** Project-relative paths to write, with the blob each takes its bytes from. */
  writes: { rel: string; sha256: string }[];
}

/** What import does with each file beside a dataset; throws 409 `dataset_file_conflict` (nothing
 * written) when a different file is at one of the paths. */
export function planDatasetFiles(b: ParsedBundle, projectDir: string): DatasetFileWrites {
  const writes: DatasetFileWrites['writes'] = [];
  const conflicts: string[] = [];
  let identical = 0;
  for (const f of b.dataset_files ?? []) {
    const rel = `${DATASETS_DIR}/${f.path}`;
    const abs = path.join(projectDir, rel);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(abs);
    } catch {
      stat = undefined;
    }
    if (!stat) writes.push({ rel, sha256: f.sha256 });
    else if (stat.isFile() && stat.size === f.size && sha256Of(abs) === f.sha256) identical += 1;
    else conflicts.push(rel);
  }
  if (conflicts.length)
    throw new PlaygroundError('dataset_file_conflict', `the bundle was not imported: a different file is already at ${conflicts.slice(0, 5).join(', ')}`, {
      paths: conflicts,
    });
  return { plan: { new: writes.length, identical }, writes };
}

/** Writes the planned files (each to a temporary name, then renamed); answers the paths written,
 * which the caller removes again if the rest of the import fails. */
export function writeDatasetFiles(w: DatasetFileWrites, staging: Staging, projectDir: string): string[] {
  const written: string[] = [];
  try {
    for (const f of w.writes) {
      const abs = path.join(projectDir, f.rel);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      const tmp = `${abs}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
      fs.copyFileSync(staging.bytesPath(f.sha256), tmp);
      fs.renameSync(tmp, abs);
      written.push(f.rel);
    }
  } catch (err) {
    removeDatasetFiles(written, projectDir);
    throw err;
  }
  return written;
}

export function removeDatasetFiles(rels: readonly string[], projectDir: string): void {
  for (const rel of rels) fs.rmSync(path.join(projectDir, rel), { force: true });
}
