// electron-vite: the Electron main process (src/main/index.ts), the sandboxed preload
// (src/preload/index.ts, bundled to one CommonJS file because sandboxed preloads cannot be
// ES modules) and the renderer (src/renderer, the same build as vite.renderer.config.ts).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { devCspPlugin, rendererBuild, rendererDevServer, rendererRoot } from './vite.renderer.config.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

// electron-vite reads Electron's major version (for the main process's Node target and ES
// module output) from the installed `electron` package. Electron is an optional dependency
// that Node < 22.12 does not install (docs/installers.md, "Node versions"): the version it
// would build for is the one package.json pins.
const pinnedElectron = (JSON.parse(readFileSync(here('./package.json'), 'utf8')) as { optionalDependencies: Record<string, string> }).optionalDependencies
  .electron;
process.env.ELECTRON_MAJOR_VER ??= pinnedElectron.split('.')[0];

/**
 * The main process and every module it loads by URL at run time. The source-analysis client
 * starts `new URL('./worker-entry.mjs', import.meta.url)` (src/main/studio/source/client.ts):
 * from src/ that file registers tsx and imports worker.ts; in the build the worker is bundled
 * under the same name beside index.js, so the one line works in both (docs/installers.md,
 * "What the app loads at run time"; test/integration/built-main.test.ts checks it).
 */
export function mainBuild(outDir = here('./out/main')) {
  return {
    outDir,
    rollupOptions: {
      input: { index: here('./src/main/index.ts'), 'worker-entry': here('./src/main/studio/source/worker.ts') },
      output: { entryFileNames: (chunk: { name: string }) => (chunk.name === 'worker-entry' ? '[name].mjs' : '[name].js') },
    },
    // Native and heavy dependencies (better-sqlite3, langgraph) load from node_modules.
    externalizeDeps: true,
  };
}

export function preloadBuild(outDir = here('./out/preload')) {
  return {
    outDir,
    rollupOptions: {
      input: { index: here('./src/preload/index.ts') },
      output: { format: 'cjs' as const, entryFileNames: '[name].cjs' },
    },
  };
}

/** The main process and the preload without the renderer, into `outDir`/main and /preload
 * (test/integration/built-main.test.ts). */
export const processesOnly = (outDir: string) =>
  defineConfig({ main: { build: mainBuild(`${outDir}/main`) }, preload: { build: preloadBuild(`${outDir}/preload`) } });

export default defineConfig({
  main: { build: mainBuild() },
  preload: { build: preloadBuild() },
  renderer: {
    root: rendererRoot,
    base: './',
    plugins: [react(), devCspPlugin],
    server: rendererDevServer(),
    build: {
      ...rendererBuild,
      outDir: here('./out/renderer'),
      rollupOptions: { input: { index: here('./src/renderer/index.html') } },
    },
    worker: { format: 'es' },
  },
});
