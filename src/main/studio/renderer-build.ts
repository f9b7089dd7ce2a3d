// The renderer's built files (out/renderer). A packed install ships them built; a git
// checkout serves them through Vite's dev server while it builds them in the background on
// first use (`start`, `serve`: prepareRenderer) and again when the renderer's sources
// are newer than the build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { RequestHandler } from 'express';

const PACKAGE_ROOT = resolve(import.meta.dirname, '../../..');
export const RENDERER_INDEX = join(PACKAGE_ROOT, 'out', 'renderer', 'index.html');
const RENDERER_SOURCES = join(PACKAGE_ROOT, 'src', 'renderer');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** A checkout holds the renderer's sources (a packed install ships only the build). */
export function isSourceCheckout(): boolean {
  return existsSync(join(RENDERER_SOURCES, 'index.html'));
}

/** True when a checkout's out/renderer is missing or older than the sources it is built from. */
export function rendererNeedsBuild(): boolean {
  if (!isSourceCheckout()) return false;
  if (!existsSync(RENDERER_INDEX)) return true;
  const built = statSync(RENDERER_INDEX).mtimeMs;
  const sources = [RENDERER_SOURCES, join(PACKAGE_ROOT, 'src', 'shared')].filter(existsSync);
  return sources.some((dir) => newestMtime(dir) > built);
}

export async function buildRenderer(): Promise<void> {
  const { build } = await import('vite');
  await build({ configFile: join(PACKAGE_ROOT, 'vite.renderer.config.ts'), logLevel: 'warn' });
}

/** Builds a checkout's renderer when it needs it, saying so (about two minutes). */
export async function ensureRendererBuilt(log: (line: string) => void): Promise<void> {
  if (!rendererNeedsBuild()) return;
  log('agent-studio: building the renderer (first use, or its sources changed; about two minutes)…');
  await buildRenderer();
}

export interface PreparedRenderer {
  /** Set while the checkout has no current production build: Vite's dev server in middleware
   * mode (src/main/studio/renderer-dev.ts), for `startStudio({ rendererDev })`. */
  dev?: RequestHandler;
  close(): Promise<void>;
}

/** When no page was asked for by then, the production build starts anyway (the next start
 * needs no dev server). */
const BUILD_WITHOUT_PAGE_MS = 60_000;

/**
 * What `start` and `serve` do before the studio listens: nothing when the build is current;
 * otherwise the dev server at once (about a second), and the production build in the
 * background (about 70 s on two cores) once the first page has loaded from the dev server
 * (its first load transforms and pre-bundles the page's modules: a build beside it would
 * take half of the cores), or after a minute with no page. Pages load the build once it is
 * ready.
 */
export async function prepareRenderer(log: (line: string) => void): Promise<PreparedRenderer> {
  if (!rendererNeedsBuild()) return { close: async () => undefined };
  log(
    'agent-studio: the renderer has no current production build: serving it through the development server now; its production build starts in the background once the first page has loaded (about a minute)…',
  );
  const { startDevRenderer, buildRendererInBackground } = await import('./renderer-dev.ts');
  const dev = await startDevRenderer();
  let closed = false;
  let build: { stop(): void } | null = null;
  let fallback: ReturnType<typeof setTimeout> | undefined;
  const noPage = new Promise<void>((r) => (fallback = setTimeout(r, BUILD_WITHOUT_PAGE_MS)));
  void Promise.race([dev.firstPageSettled, noPage]).then(() => {
    clearTimeout(fallback);
    if (closed) return;
    log('agent-studio: building the renderer in the background at low priority…');
    build = buildRendererInBackground(log);
  });
  return {
    dev: dev.handler,
    close: async () => {
      closed = true;
      clearTimeout(fallback);
      build?.stop();
      await dev.close();
    },
  };
}
