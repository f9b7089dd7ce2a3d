// A checkout whose renderer is not built yet (or is older than its sources) is served at
// once through Vite's dev server in middleware mode, inside the studio's own Express app,
// while the production build runs in a background process (docs/studio-api.md, "The
// renderer on first start"). The page keeps the production CSP (src/renderer/index.html):
// no React Fast Refresh (its preamble is an inline script), no HMR and no WebSocket server
// (`server.ws: false`), so the studio's port answers only HTTP behind the loopback Host and
// Origin guard (docs/security.md) and no second port is opened.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { constants, setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { RequestHandler } from 'express';
import type { Plugin } from 'vite';

const PACKAGE_ROOT = resolve(import.meta.dirname, '../../..');
const OUT = join(PACKAGE_ROOT, 'out');
const NICE = '/usr/bin/nice';

/** Vite's browser client would open a WebSocket to port 24678 (middleware mode's default):
 * the CSP refuses it and the console fills with errors. Nothing pushes updates here, so the
 * client is served without its connect call. */
const HMR_CONNECT = 'transport.connect(createHMRHandler(handleMessage));';
const noHmrConnection: Plugin = {
  name: 'agent-studio:no-hmr-connection',
  transform(code, id) {
    if (!/[\\/]vite[\\/]dist[\\/]client[\\/]client\.mjs$/.test(id.split('?')[0]!)) return null;
    if (!code.includes(HMR_CONNECT)) throw new Error(`Vite's client changed: '${HMR_CONNECT}' not found (src/main/studio/renderer-dev.ts)`);
    return code.replace(HMR_CONNECT, '/* no HMR connection: src/main/studio/renderer-dev.ts */');
  },
};

export interface DevRenderer {
  /** Answers the renderer's page and modules (non-API GET and HEAD requests). */
  handler: RequestHandler;
  /** Resolves once the dev server has answered a page and then every module that page asked
   * for, with nothing asked for QUIET_MS after: the browser has its first page whole. */
  firstPageSettled: Promise<void>;
  close(): Promise<void>;
}

/** How long the dev server stays unasked, after a page and its modules, before the first page
 * counts as loaded. A page asks for its next modules within milliseconds of receiving the
 * ones that import them; a dependency being pre-bundled keeps its request open meanwhile. */
export const QUIET_MS = 3000;

/** Watches the requests the dev server answers for the first page to settle. */
function firstPageWatch(): { track: RequestHandler; settled: Promise<void> } {
  let markSettled!: () => void;
  const settled = new Promise<void>((r) => (markSettled = r));
  let pageAsked = false;
  let done = false;
  let open = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const arm = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (done || !pageAsked || open > 0) return;
    timer = setTimeout(() => {
      done = true;
      markSettled();
    }, QUIET_MS);
    timer.unref();
  };
  const track: RequestHandler = (req, res, next) => {
    if (done) return next();
    // A page is any path the dev server answers with index.html (static.ts routes only those
    // and its own module paths here); module paths are counted once a page was asked for.
    if (!/^\/(@|src\/|node_modules\/)/.test(req.path)) pageAsked = true;
    open += 1;
    if (timer) clearTimeout(timer);
    timer = null;
    res.once('close', () => {
      open -= 1;
      arm();
    });
    next();
  };
  return { track, settled };
}

export async function startDevRenderer(): Promise<DevRenderer> {
  const { createServer } = await import('vite');
  const server = await createServer({
    configFile: false,
    root: join(PACKAGE_ROOT, 'src', 'renderer'),
    base: '/',
    appType: 'spa',
    // Pre-bundled dependencies go under out/, never into node_modules (which a checkout may share).
    cacheDir: join(OUT, '.vite-dev'),
    logLevel: 'warn',
    clearScreen: false,
    esbuild: { jsx: 'automatic' },
    worker: { format: 'es' },
    plugins: [noHmrConnection],
    // The page's modules are transformed while the studio starts, before a browser asks.
    server: { middlewareMode: true, hmr: false, ws: false, watch: null, warmup: { clientFiles: ['./src/main.tsx'] } },
  });
  const watch = firstPageWatch();
  return {
    handler: (req, res, next) => watch.track(req, res, () => server.middlewares(req, res, next)),
    firstPageSettled: watch.settled,
    close: () => server.close(),
  };
}

export interface BackgroundBuild {
  /** Resolves true once out/renderer holds the new build, false when the build failed. */
  done: Promise<boolean>;
  stop(): void;
}

/** The lowest CPU priority (nice 19): the build takes only what the dev server, the runtime
 * and the browser leave. Started through `nice` where there is one, so every thread and child
 * (esbuild) of the build has it from its start (Linux keeps a nice value per thread, and a
 * `setPriority` after the spawn reaches only the threads not yet created); elsewhere the
 * process is lowered right after it starts. */
function spawnLowPriority(args: string[]): ChildProcessByStdio<null, null, Readable> {
  const options = { cwd: PACKAGE_ROOT, stdio: ['ignore', 'ignore', 'pipe'] as ['ignore', 'ignore', 'pipe'] };
  if (process.platform !== 'win32' && existsSync(NICE)) return spawn(NICE, ['-n', '19', process.execPath, ...args], options);
  const child = spawn(process.execPath, args, options);
  try {
    if (child.pid) setPriority(child.pid, constants.priority.PRIORITY_LOW);
  } catch {
    // Not permitted on this system: the build runs at normal priority.
  }
  return child;
}

/**
 * `vite build` of the renderer in a child process at the lowest CPU priority (the dev server
 * and the runtime stay responsive), into out/.renderer-next, moved to out/renderer when it
 * succeeds: a half-written build is never served.
 */
export function buildRendererInBackground(log: (line: string) => void): BackgroundBuild {
  const next = join(OUT, '.renderer-next');
  const vite = join(PACKAGE_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const config = join(PACKAGE_ROOT, 'vite.renderer.config.ts');
  const started = Date.now();
  const child = spawnLowPriority([vite, 'build', '--config', config, '--outDir', next, '--emptyOutDir', '--logLevel', 'error']);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const done = new Promise<boolean>((resolveDone) => {
    child.once('error', (err) => {
      log(`agent-studio: the renderer's production build did not start: ${err.message}`);
      resolveDone(false);
    });
    child.once('exit', (code, signal) => {
      if (code !== 0 || !existsSync(join(next, 'index.html'))) {
        if (!signal) log(`agent-studio: the renderer's production build failed (exit ${code}):\n${stderr.trim()}`);
        rmSync(next, { recursive: true, force: true });
        return resolveDone(false);
      }
      rmSync(join(OUT, 'renderer'), { recursive: true, force: true });
      renameSync(next, join(OUT, 'renderer'));
      log(`agent-studio: the renderer's production build is ready (${Math.round((Date.now() - started) / 1000)} s); pages load it from now on`);
      resolveDone(true);
    });
  });
  return { done, stop: () => child.kill('SIGTERM') };
}
