// `agent-studio start` (what `npm start` runs): the desktop app when the Electron binary is
// installed and a display exists; otherwise the headless studio on the example project,
// with the URL to open in a browser and the reason Electron was not used.
//   agent-studio start [--project DIR] [--port N] [--data-dir DIR] [--headless]
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags, parsePort } from '../cli-args.ts';
import { isSourceCheckout, prepareRenderer } from './renderer-build.ts';
import { homedir } from 'node:os';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const DEFAULT_PROJECT = join(REPO_ROOT, 'examples', 'support-desk');

/** Where `start` keeps its data: the project's own folder for a project you name (like
 * `serve`); for the bundled example, .data/studio in a checkout, else under your home (an
 * installed package's folder may not be writable). */
export function defaultDataDir(project: string | undefined): string {
  if (project) return join(resolve(project), '.agent-studio', 'studio');
  return isSourceCheckout() ? join(REPO_ROOT, '.data', 'studio') : join(homedir(), '.agent-studio', 'example-studio');
}
const DEFAULT_PORT = 5180;

export type ElectronBinary = { ok: true; path: string } | { ok: false; reason: string };

/**
 * Where the Electron binary is, found the way the electron package's own entry finds it, but
 * without loading that entry: it starts a download when the binary is missing.
 */
export function findElectronBinary(): ElectronBinary {
  let pkgDir: string;
  try {
    pkgDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return {
      ok: false,
      reason: 'the electron package is not installed (an optional dependency that Node >= 22.12 installs; docs/installers.md, "Node versions")',
    };
  }
  const pathFile = join(pkgDir, 'path.txt');
  const relPath = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : '';
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const p = join(override, relPath || 'electron');
    return existsSync(p) ? { ok: true, path: p } : { ok: false, reason: `ELECTRON_OVERRIDE_DIST_PATH has no Electron binary at ${p}` };
  }
  if (!relPath) {
    return {
      ok: false,
      reason:
        'the Electron binary was never downloaded (node_modules/electron/path.txt is missing); with network access, `node node_modules/electron/install.js` fetches it',
    };
  }
  const binary = join(pkgDir, 'dist', relPath);
  if (!existsSync(binary)) return { ok: false, reason: `the Electron binary is missing at ${binary}` };
  return { ok: true, path: binary };
}

/** Linux needs a display server for a window. */
function displayProblem(): string | null {
  if (process.platform !== 'linux') return null;
  return process.env.DISPLAY || process.env.WAYLAND_DISPLAY ? null : 'there is no display (neither DISPLAY nor WAYLAND_DISPLAY is set)';
}

function show(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

async function runElectron(binary: string, projectDir: string, dataDir: string | undefined): Promise<void> {
  process.stdout.write('agent-studio: building the desktop app with electron-vite…\n');
  const { build } = await import('electron-vite');
  await build({ configFile: join(REPO_ROOT, 'electron.vite.config.ts'), logLevel: 'warn' });
  process.stdout.write(`agent-studio: opening the desktop app on ${show(projectDir)}\n`);
  const child = spawn(binary, [REPO_ROOT], {
    stdio: 'inherit',
    env: { ...process.env, AGENT_STUDIO_PROJECT: projectDir, ...(dataDir ? { AGENT_STUDIO_DATA_DIR: dataDir } : {}) },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  const code = await new Promise<number>((res) => child.on('exit', (c, s) => res(c ?? (s ? 1 : 0))));
  process.exitCode = code;
}

async function runHeadless(reason: string, projectDir: string, dataDir: string, port: number, portGiven: boolean): Promise<void> {
  const renderer = await prepareRenderer((line) => process.stdout.write(`${line}\n`));
  const { startStudio } = await import('./studio.ts');
  let studio: Awaited<ReturnType<typeof startStudio>>;
  try {
    studio = await startStudio({ projectDir, dataDir, port, rendererDev: renderer.dev });
  } catch (err) {
    // The usual port is taken (another studio?): any free port will do unless one was asked for.
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || portGiven) {
      await renderer.close();
      throw err;
    }
    studio = await startStudio({ projectDir, dataDir, port: 0, rendererDev: renderer.dev });
  }

  process.stdout.write(
    [
      '',
      `Agent Studio is running headless, without Electron, because ${reason}.`,
      '',
      `  Open ${studio.url} in a browser (Chromium, Firefox, …).`,
      '',
      `  project   ${show(projectDir)}`,
      `  data dir  ${show(dataDir)}`,
      '',
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write('agent-studio: stopping now\n');
      process.exit(130);
    }
    stopping = true;
    process.stdout.write(`\nagent-studio: ${signal}, stopping the studio (active runs end interrupted, reason studio_shutdown)…\n`);
    Promise.all([studio.close(), renderer.close()]).then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`agent-studio: the studio did not stop cleanly: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

export async function runStartCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, {
    project: { type: 'string' },
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    headless: { type: 'boolean' },
  });
  const projectDir = resolve(typeof flags.project === 'string' ? flags.project : DEFAULT_PROJECT);
  const dataDir = resolve(
    typeof flags['data-dir'] === 'string' ? flags['data-dir'] : defaultDataDir(typeof flags.project === 'string' ? flags.project : undefined),
  );
  const port = parsePort(flags.port, DEFAULT_PORT);

  let reason: string;
  if (flags.headless) {
    reason = 'you asked for --headless';
  } else {
    const electron = findElectronBinary();
    const noDisplay = displayProblem();
    if (electron.ok && !noDisplay) {
      await runElectron(electron.path, projectDir, typeof flags['data-dir'] === 'string' ? dataDir : undefined);
      return;
    }
    reason = electron.ok ? noDisplay! : electron.reason;
  }
  await runHeadless(reason, projectDir, dataDir, port, flags.port !== undefined);
}
