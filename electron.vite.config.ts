// electron-vite: the Electron main process (src/main/index.ts), the sandboxed preload
// (src/preload/index.ts, bundled to one CommonJS file because sandboxed preloads cannot be
// ES modules) and the renderer (src/renderer, the same build as vite.renderer.config.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';
import { devCspPlugin, rendererBuild, rendererDevServer, rendererRoot } from './vite.renderer.config.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default defineConfig({
  main: {
    build: {
      outDir: here('./out/main'),
      rollupOptions: { input: { index: here('./src/main/index.ts') } },
      // Native and heavy dependencies (better-sqlite3, langgraph) load from node_modules.
      externalizeDeps: true,
    },
  },
  preload: {
    build: {
      outDir: here('./out/preload'),
      rollupOptions: {
        input: { index: here('./src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
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
