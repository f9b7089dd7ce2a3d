// The renderer built on its own, for the headless studio (`npm run build:renderer`,
// `agent-studio start` without Electron). electron.vite.config.ts builds the same renderer
// for the Electron app and reuses the dev-server settings exported here.
// Dev: `agent-studio serve --project examples/support-desk --port 5180` in one terminal,
// `npx vite --config vite.renderer.config.ts` in another (AGENT_STUDIO_URL overrides the
// studio address).
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin, type ServerOptions, type UserConfig } from 'vite';
import react from '@vitejs/plugin-react';

export const rendererRoot = fileURLToPath(new URL('./src/renderer', import.meta.url));
const outDir = fileURLToPath(new URL('./out/renderer', import.meta.url));

/**
 * React Fast Refresh injects an inline module script and talks to Vite over a WebSocket;
 * the production CSP in index.html forbids both. Only the dev server widens it.
 */
export const devCspPlugin: Plugin = {
  name: 'agent-studio:dev-csp',
  apply: 'serve',
  transformIndexHtml(html) {
    return html.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace("connect-src 'self'", "connect-src 'self' ws: wss:");
  },
};

/** The dev server forwards `/api` to a running studio so the renderer stays same-origin. */
export function rendererDevServer(studioUrl = process.env.AGENT_STUDIO_URL ?? 'http://127.0.0.1:5180'): ServerOptions {
  return {
    host: '127.0.0.1',
    proxy: {
      '/api': {
        target: studioUrl,
        changeOrigin: true,
        // The studio refuses foreign Origins (spec 5.1); this proxied request is our own.
        configure: (proxy) => {
          proxy.on('proxyReq', (req) => req.removeHeader('origin'));
        },
      },
    },
  };
}

/** Build settings shared with electron.vite.config.ts. */
export const rendererBuild: UserConfig['build'] = {
  // electron-vite leaves minification off by default; the renderer is minified either way.
  minify: 'esbuild',
  // Monaco alone is a few MB; it is split into its own lazily loaded chunk.
  chunkSizeWarningLimit: 4096,
  sourcemap: true,
};

export default defineConfig({
  root: rendererRoot,
  // Relative asset URLs: the studio serves the renderer at `/`, Electron loads the same files.
  base: './',
  plugins: [react(), devCspPlugin],
  server: rendererDevServer(),
  build: { ...rendererBuild, outDir, emptyOutDir: true },
  worker: { format: 'es' },
});
