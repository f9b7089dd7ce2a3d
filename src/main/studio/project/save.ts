// The one save path for project files (docs/studio-api.md, `POST /api/save`): the source view
// and the datasets endpoints (docs/playground-api.md, "Datasets and experiments") write
// through it. A write with the hash the client read is refused (409 `file_changed`) when the
// file changed on disk since; the file is written to a temp file and renamed, so a crash never
// leaves half a file; the project state hears of it at once.
import fs from 'node:fs/promises';
import { OperationError, projectFileForWrite } from '../../common/project-file.ts';
import { PlaygroundError } from '../../playground/errors.ts';
import { sha256 } from '../source/analysis.ts';

export interface SaveTarget {
  projectDir: string;
  project: { changed(files: string[]): void };
}

export interface SavedFile {
  path: string;
  sha256: string;
  size: number;
}

export function fileError(err: unknown): Error {
  if (err instanceof OperationError) {
    if (err.code === 'NOT_FOUND') return new PlaygroundError('not_found', err.message);
    return new PlaygroundError('forbidden_path', err.message);
  }
  return err as Error;
}

/** Reads a project file for an edit: its text (null when it does not exist) and the hash to
 * pass back as `base_sha256`. */
export async function readForEdit(t: SaveTarget, rel: string): Promise<{ content: string | null; sha256: string | null }> {
  const abs = await projectFileForWrite(t.projectDir, rel).catch((err) => {
    throw fileError(err);
  });
  const content = await fs.readFile(abs, 'utf8').catch(() => null);
  return { content, sha256: content === null ? null : sha256(content) };
}

/** Writes `content` to the project file `rel`. `baseSha256`: the hash the client read. */
export async function saveProjectFile(t: SaveTarget, rel: string, content: string, baseSha256?: string | null): Promise<SavedFile> {
  const abs = await projectFileForWrite(t.projectDir, rel).catch((err) => {
    throw fileError(err);
  });
  const current = await fs.readFile(abs, 'utf8').catch(() => null);
  if (baseSha256 && current !== null && sha256(current) !== baseSha256) {
    throw new PlaygroundError('file_changed', `${rel} changed on disk since it was opened: reload it, or save again without base_sha256 to overwrite`, {
      path: rel,
      sha256: sha256(current),
    });
  }
  const tmp = `${abs}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(tmp, content);
  await fs.rename(tmp, abs).catch(async (err) => {
    await fs.rm(tmp, { force: true });
    throw err;
  });
  // Applied at once (the watcher would see it too, a moment later).
  t.project.changed([rel]);
  return { path: rel, sha256: sha256(content), size: Buffer.byteLength(content) };
}
