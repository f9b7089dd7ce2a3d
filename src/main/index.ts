// Electron entry: starts the same services as `agent-studio serve` (the Playground API,
// the supervised runtime, the built renderer) and shows them in one hardened window.
// Everything else in src/main runs under plain Node; only this file and src/main/electron/
// import electron.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, dialog, session } from 'electron';
import { startStudio } from './studio/studio.ts';
import { openProjectFileInEditor, revealProjectFile } from './electron/files.ts';
import { OperationError, registerIpcHandlers } from './electron/ipc.ts';
import { installSecurity, secureWebPreferences, setAppOrigin } from './electron/security.ts';
import { dataDirFor, initialProjectDir, writeSettings } from './electron/settings.ts';
import type { OpenedProject } from '../shared/bridge.ts';

type Studio = Awaited<ReturnType<typeof startStudio>>;

/** electron-vite dev serves the renderer itself and proxies /api to a studio on this port. */
const devRendererUrl = process.env.ELECTRON_RENDERER_URL;
const DEV_STUDIO_PORT = Number(process.env.AGENT_STUDIO_DEV_PORT ?? 5180);
const preloadPath = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));

let studio: Studio | null = null;
let projectDir = '';
let win: BrowserWindow | null = null;

async function launchStudio(dir: string): Promise<Studio> {
  return startStudio({ projectDir: dir, dataDir: dataDirFor(dir), port: devRendererUrl ? DEV_STUDIO_PORT : 0 });
}

function pageUrl(): string {
  return devRendererUrl ?? studio!.url;
}

async function showStudio(): Promise<void> {
  setAppOrigin(pageUrl());
  if (!win) {
    win = new BrowserWindow({
      width: 1440,
      height: 920,
      minWidth: 960,
      minHeight: 600,
      show: false,
      title: 'Agent Studio',
      autoHideMenuBar: true,
      webPreferences: secureWebPreferences(preloadPath),
    });
    win.once('ready-to-show', () => win?.show());
    win.on('closed', () => {
      win = null;
    });
  }
  await win.loadURL(pageUrl());
}

/** Switches the studio to another project: the old one stops (its runs end studio_shutdown). */
async function switchProject(dir: string): Promise<OpenedProject> {
  const previous = projectDir;
  await studio?.close();
  studio = null;
  try {
    studio = await launchStudio(dir);
    projectDir = dir;
  } catch (err) {
    studio = await launchStudio(previous);
    throw err;
  }
  writeSettings({ lastProject: dir });
  // After the answer reaches the renderer, load the new studio (main-initiated navigation).
  setImmediate(() => void showStudio());
  return { dir, url: studio.url };
}

registerIpcHandlers({
  async openProjectFolder() {
    const options = { title: 'Open an agent project', properties: ['openDirectory' as const] };
    const picked = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
    if (picked.canceled || picked.filePaths.length === 0) return null;
    const dir = resolve(picked.filePaths[0]);
    if (!existsSync(join(dir, 'agent.json'))) {
      throw new OperationError('NOT_A_PROJECT', `${dir} has no agent.json: pick the folder of an agent project.`);
    }
    return switchProject(dir);
  },
  revealFile: (path) => revealProjectFile(projectDir, path),
  openInEditor: (path, line) => openProjectFileInEditor(projectDir, path, line),
});

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win) {
      if (win.isMinimized()) win.restore();
      win.focus();
    }
  });

  app.whenReady().then(async () => {
    installSecurity(session.defaultSession);
    projectDir = initialProjectDir();
    try {
      studio = await launchStudio(projectDir);
    } catch (err) {
      dialog.showErrorBox('Agent Studio could not start', `The studio for ${projectDir} did not start:\n\n${(err as Error).message}`);
      app.exit(1);
      return;
    }
    await showStudio();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) void showStudio();
    });
  });

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });

  // Stop the studio (and its runtime child) before quitting: active runs end studio_shutdown.
  let closing = false;
  app.on('before-quit', (event) => {
    if (closing || !studio) return;
    closing = true;
    event.preventDefault();
    void studio.close().finally(() => {
      studio = null;
      app.quit();
    });
  });
}
