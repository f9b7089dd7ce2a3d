// Project-relative paths to real files, refusing anything outside the project folder: `..`
// escapes, absolute paths and symlinks that lead out. The Electron shell (open, reveal) and
// the studio's save path (/api/save) both go through here.
import { lstat, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

export class OperationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function projectFile(projectDir: string, path: string): Promise<string> {
  if (isAbsolute(path)) throw new OperationError('OUTSIDE_PROJECT', 'Paths must be relative to the project folder.');
  const abs = resolve(projectDir, path);
  // Refuse `..` escapes before touching the disk at all.
  if (!isInside(resolve(projectDir), abs)) throw new OperationError('OUTSIDE_PROJECT', `${path} is outside the project folder.`);
  const notFound = () => new OperationError('NOT_FOUND', `${path} does not exist in the project.`);
  const root = await realpath(projectDir).catch(() => null);
  // A missing target, a dangling link or a link loop: nothing to open.
  const real = await realpath(abs).catch(() => null);
  if (root === null || real === null) throw notFound();
  if (!isInside(root, real)) throw new OperationError('OUTSIDE_PROJECT', `${path} leads outside the project folder.`);
  const info = await stat(real).catch(() => null);
  if (!info?.isFile()) throw notFound();
  return real;
}

/** `target` is strictly below `root` (both absolute). A name that merely starts with two dots
 * (`..notes`) is still inside. */
function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** Where a write of project-relative `path` may go: inside the project after resolving every
 * symlink of the existing part of the path; the file itself need not exist yet, but if it
 * does it must be a regular file (not a link). Answers the absolute path to write. */
export async function projectFileForWrite(projectDir: string, path: string): Promise<string> {
  if (isAbsolute(path)) throw new OperationError('OUTSIDE_PROJECT', 'Paths must be relative to the project folder.');
  const abs = resolve(projectDir, path);
  if (!isInside(resolve(projectDir), abs)) throw new OperationError('OUTSIDE_PROJECT', `${path} is outside the project folder.`);
  const root = await realpath(projectDir).catch(() => null);
  if (root === null) throw new OperationError('NOT_FOUND', 'The project folder does not exist.');
  const parent = await realpath(dirname(abs)).catch(() => null);
  if (parent === null) throw new OperationError('NOT_FOUND', `The folder of ${path} does not exist in the project.`);
  if (parent !== root && !isInside(root, parent)) throw new OperationError('OUTSIDE_PROJECT', `${path} leads outside the project folder.`);
  const existing = await lstat(abs).catch(() => null);
  if (existing && !existing.isFile()) throw new OperationError('NOT_A_FILE', `${path} is not a regular file (a link or a folder): it is not written.`);
  return join(parent, basename(abs));
}
