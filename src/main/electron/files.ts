// File operations of the bridge, confined to the open project: the renderer names a
// project-relative path, never an arbitrary one, and nothing executable is ever opened.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { extname, isAbsolute, relative, resolve } from 'node:path';
import { shell } from 'electron';
import { OperationError } from './ipc.ts';

const NEVER_OPEN = new Set(['.exe', '.bat', '.cmd', '.com', '.msi', '.ps1', '.sh', '.bash', '.zsh', '.command', '.app', '.desktop', '.lnk', '.scr', '.jar', '.appimage', '.deb', '.rpm', '.dmg', '.pkg']);

/** Resolves a project-relative path, refusing anything outside the project. */
export async function projectFile(projectDir: string, path: string): Promise<string> {
  if (isAbsolute(path)) throw new OperationError('OUTSIDE_PROJECT', 'Paths must be relative to the project folder.');
  const abs = resolve(projectDir, path);
  const rel = relative(projectDir, abs);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new OperationError('OUTSIDE_PROJECT', `${path} is outside the project folder.`);
  const info = await stat(abs).catch(() => null);
  if (!info?.isFile()) throw new OperationError('NOT_FOUND', `${path} does not exist in the project.`);
  return abs;
}

export async function revealProjectFile(projectDir: string, path: string): Promise<void> {
  shell.showItemInFolder(await projectFile(projectDir, path));
}

/**
 * Opens a project file in the user's editor. AGENT_STUDIO_EDITOR may name a command with
 * {file} and {line} placeholders (e.g. `code -g {file}:{line}`), run without a shell;
 * otherwise the OS default application for the file type opens it.
 */
export async function openProjectFileInEditor(projectDir: string, path: string, line?: number): Promise<void> {
  const abs = await projectFile(projectDir, path);
  const template = process.env.AGENT_STUDIO_EDITOR?.trim();
  if (template) {
    const [cmd, ...args] = template.split(/\s+/).map((t) => t.replaceAll('{file}', abs).replaceAll('{line}', String(line ?? 1)));
    const child = spawn(cmd, args, { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return;
  }
  const info = await stat(abs);
  if (NEVER_OPEN.has(extname(abs).toLowerCase()) || (process.platform !== 'win32' && (info.mode & 0o111) !== 0)) {
    // Opening could run it: show it in the file manager instead.
    shell.showItemInFolder(abs);
    return;
  }
  const error = await shell.openPath(abs);
  if (error) throw new OperationError('OPEN_FAILED', error);
}
