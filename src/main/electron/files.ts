// File operations of the bridge, confined to the open project: the renderer names a
// project-relative path, never an arbitrary one, and nothing executable is ever opened.
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { shell } from 'electron';
import { couldExecute, editorCommand, OperationError, projectFile } from './policy.ts';

export async function revealProjectFile(projectDir: string, path: string): Promise<void> {
  shell.showItemInFolder(await projectFile(projectDir, path));
}

/**
 * Opens a project file in the user's editor: AGENT_STUDIO_EDITOR when set (run without a
 * shell), otherwise the OS default application for the file type.
 */
export async function openProjectFileInEditor(projectDir: string, path: string, line?: number): Promise<void> {
  const abs = await projectFile(projectDir, path);
  const custom = editorCommand(process.env.AGENT_STUDIO_EDITOR ?? '', abs, line);
  if (custom) {
    const child = spawn(custom.command, custom.args, { detached: true, stdio: 'ignore' });
    child.on('error', () => undefined);
    child.unref();
    return;
  }
  if (couldExecute(abs, (await stat(abs)).mode)) {
    // Opening could run it: show it in the file manager instead.
    shell.showItemInFolder(abs);
    return;
  }
  const error = await shell.openPath(abs);
  if (error) throw new OperationError('OPEN_FAILED', error);
}
