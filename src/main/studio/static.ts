// The built renderer (out/renderer) at `/`, with SPA fallback: a GET for any other
// non-API path answers index.html so client-side routes survive a reload. API paths
// (/api/, /internal/) never reach the static files, so they always answer JSON. Whether a
// build exists is checked per request: building the renderer while the studio runs works
// on the next reload. With `dev` (a checkout whose build is not ready, renderer-dev.ts), the
// dev server answers until the build exists, and always answers its own module paths, so a
// page it served keeps loading its lazy modules after the switch.
import fs from 'node:fs';
import path from 'node:path';
import express, { Router, type RequestHandler } from 'express';

const isApi = (p: string) => p === '/api' || p === '/internal' || p.startsWith('/api/') || p.startsWith('/internal/');
/** Paths only Vite's dev server serves (/@vite/client, /@fs/..., /src/..., /node_modules/...). */
const isDevModule = (p: string) => p.startsWith('/@') || p.startsWith('/src/') || p.startsWith('/node_modules/');

export function createStaticRouter(rendererDir: string, dev?: RequestHandler): Router {
  const router = Router();
  const index = path.join(rendererDir, 'index.html');
  // No directory redirects: they answer HTML pages of their own.
  const files = express.static(rendererDir, { index: 'index.html', fallthrough: true, redirect: false });
  router.use((req, res, next) => {
    if (isApi(req.path)) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (dev && (isDevModule(req.path) || !fs.existsSync(index))) return dev(req, res, next);
    if (!fs.existsSync(index)) {
      res
        .status(200)
        .type('text/plain')
        .send(
          'Agent Studio is running headless. The renderer is not built (no out/renderer/index.html):\n' +
            'run `npm run build:renderer`, then reload this page. The Playground API is at /api/playground/v1.\n',
        );
      return;
    }
    files(req, res, (err?: unknown) => {
      if (err) return next(err);
      res.sendFile(index, { headers: { 'cache-control': 'no-cache' } }, (sendErr) => {
        if (sendErr) next(sendErr);
      });
    });
  });
  return router;
}
