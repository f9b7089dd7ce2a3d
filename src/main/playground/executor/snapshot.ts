// Code snapshots: the project's code a run runs with, recorded on the run when it starts
// running: the fingerprint, and each file's content kept as a blob linked to the run (so it
// is kept, and deleted, with the run's session). The run inspector and compare read them.
import type { Logger } from 'pino';
import type { PlaygroundStore, RunPatch } from '../store/store.ts';

/** The project's files now, their contents kept in the blob store (studio/project/state.ts). */
export interface CodeSnapshot {
  fingerprint: string;
  /** File path -> sha256 of its content. */
  files: Record<string, string>;
  /** File path -> size in bytes. */
  sizes: Record<string, number>;
}

/** Links the run's code (the files its preparing phase found) to the run and answers its code fields. A
 * snapshot that cannot be taken is logged and leaves the fields unset: the run goes on. */
export function snapshotCode(runId: string, project: { runCode(): CodeSnapshot } | undefined, store: PlaygroundStore, logger: Logger): RunPatch {
  let snap: CodeSnapshot | undefined;
  try {
    snap = project?.runCode();
  } catch (err) {
    logger.warn({ err: (err as Error).message, run_id: runId }, 'the code fingerprint could not be taken');
  }
  if (!snap) return {};
  const now = new Date().toISOString();
  for (const [file, sha] of Object.entries(snap.files)) store.linkBlob(runId, sha, snap.sizes[file] ?? 0, now);
  return { code_fingerprint: snap.fingerprint, code_files: snap.files };
}
