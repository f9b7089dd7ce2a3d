// A checkout whose renderer is not built yet (or is older than its sources) is served at
// once through Vite's dev server in middleware mode, inside the studio's own Express app,
// while the production build runs in a background process (docs/studio-api.md, "The
// renderer on first start"). The page keeps the production CSP (src/renderer/index.html):
// no React Fast Refresh (its preamble is an inline script), no HMR and no WebSocket server
// (`server.ws: false`), so the studio's port answers only HTTP behind the loopback Host and
// Origin guard (docs/security.md) and no second port is opened.
import { spawn } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join, resolve } from 'node:path';
import type { RequestHandler } from 'express';
import type { Plugin } from 'vite';

const PACKAGE_ROOT = resolve(import.meta.dirname, '../../..');
const OUT = join(PACKAGE_ROOT, 'out');

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
  close(): Promise<void>;
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
  return {
    handler: (req, res, next) => server.middlewares(req, res, next),
    close: () => server.close(),
  };
}

export interface BackgroundBuild {
  /** Resolves true once out/renderer holds the new build, false when the build failed. */
  done: Promise<boolean>;
  stop(): void;
}

/**
 * `vite build` of the renderer in a child process at a lower CPU priority (the dev server
 * and the runtime stay responsive), into out/.renderer-next, moved to out/renderer when it
 * succeeds: a half-written build is never served.
 */
export function buildRendererInBackground(log: (line: string) => void): BackgroundBuild {
  const next = join(OUT, '.renderer-next');
  const vite = join(PACKAGE_ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const config = join(PACKAGE_ROOT, 'vite.renderer.config.ts');
  const started = Date.now();
  const child = spawn(process.execPath, [vite, 'build', '--config', config, '--outDir', next, '--emptyOutDir', '--logLevel', 'error'], {
    cwd: PACKAGE_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  try {
    if (child.pid) setPriority(child.pid, 10);
  } catch {
    // Not permitted on this system: the build runs at normal priority.
  }
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
