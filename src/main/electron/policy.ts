// The decisions of the desktop shell's security and file operations, kept free of any
// electron import so they are unit-tested under plain Node (policy.test.ts).
import { extname } from 'node:path';
import { OperationError, projectFile } from '../common/project-file.ts';

export { OperationError, projectFile };

/** External URLs the studio may hand to the OS: https pages and mail links, nothing else. */
export function isAllowedExternal(raw: string): boolean {
  try {
    const url = new URL(raw);
    return url.protocol === 'https:' || url.protocol === 'mailto:';
  } catch {
    return false;
  }
}

/** True when `raw` is on `origin` exactly (scheme, host and port). */
export function isSameOrigin(raw: string, origin: string): boolean {
  try {
    return origin !== '' && new URL(raw).origin === origin;
  } catch {
    return false;
  }
}

/** Permissions the renderer may use: writing to the clipboard (copy buttons). */
export const ALLOWED_PERMISSIONS: ReadonlySet<string> = new Set(['clipboard-sanitized-write']);

/**
 * Resolves a project-relative path to an existing file, refusing anything outside the project.
 * Symlinks are followed: the check is made on the real (fully resolved) paths of both the
 * target and the project folder, so a link inside the project cannot reach a file outside
 * it, while a project opened through a symlinked folder still works. Returns the real path,
 * the one that was checked, so that what is opened is what was allowed.
 */
const NEVER_OPEN = new Set([
  '.exe',
  '.bat',
  '.cmd',
  '.com',
  '.msi',
  '.ps1',
  '.sh',
  '.bash',
  '.zsh',
  '.command',
  '.app',
  '.desktop',
  '.lnk',
  '.scr',
  '.jar',
  '.appimage',
  '.deb',
  '.rpm',
  '.dmg',
  '.pkg',
]);

/** Opening this file with the OS default handler could run it. */
export function couldExecute(abs: string, mode: number, platform: NodeJS.Platform = process.platform): boolean {
  return NEVER_OPEN.has(extname(abs).toLowerCase()) || (platform !== 'win32' && (mode & 0o111) !== 0);
}

/** `AGENT_STUDIO_EDITOR` (e.g. `code -g {file}:{line}`) → command and arguments, no shell. */
export function editorCommand(template: string, file: string, line?: number): { command: string; args: string[] } | null {
  const parts = template.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return null;
  const [command, ...args] = parts.map((t) => t.replaceAll('{file}', file).replaceAll('{line}', String(line ?? 1)));
  // A template without {file} gets the file as its last argument.
  if (!template.includes('{file}')) args.push(file);
  return { command, args };
}
