// A run's code fingerprint (docs/studio-api.md): the sha256 of every project file it ran
// with, and one hash over them all. Contents are kept content-addressed in the blob store
// (deduplicated: an unchanged file is stored once however many runs used it), so the
// source view can show a file as it was at a run.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isEvalsPath, MAX_SOURCE_BYTES, projectFiles } from './files.ts';

export interface CodeSnapshot {
  /** sha256 over the sorted (path, file sha256) pairs. */
  fingerprint: string;
  /** path → sha256 of its content. */
  files: Record<string, string>;
  /** path → size in bytes. */
  sizes: Record<string, number>;
}

const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** Per file, its hash; re-hashed only when its size or modification time changed. */
export class ProjectFingerprint {
  private readonly cache = new Map<string, { stamp: string; sha256: string; size: number }>();

  constructor(private readonly projectDir: string) {}

  /** The current snapshot; `store` (the blob store) receives the bytes of each file it
   * does not hold yet. */
  snapshot(store?: { has(sha256: string): boolean; put(bytes: Buffer): unknown }): CodeSnapshot {
    const files: Record<string, string> = {};
    const sizes: Record<string, number> = {};
    // Datasets are not code (docs/evaluation.md): evals/ is not even walked.
    for (const rel of projectFiles(this.projectDir, isEvalsPath)) {
      const abs = path.join(this.projectDir, rel);
      let st: fs.Stats;
      try {
        st = fs.statSync(abs);
      } catch {
        continue;
      }
      if (st.size > MAX_SOURCE_BYTES) continue;
      const stamp = `${st.size}:${st.mtimeMs}`;
      let entry = this.cache.get(rel);
      if (!entry || entry.stamp !== stamp || (store && !store.has(entry.sha256))) {
        const bytes = fs.readFileSync(abs);
        entry = { stamp, sha256: sha256(bytes), size: bytes.length };
        this.cache.set(rel, entry);
        if (store && !store.has(entry.sha256)) store.put(bytes);
      }
      files[rel] = entry.sha256;
      sizes[rel] = entry.size;
    }
    const fingerprint = sha256(
      Object.keys(files)
        .sort()
        .map((p) => `${p}\0${files[p]}\n`)
        .join(''),
    );
    return { fingerprint, files, sizes };
  }
}
