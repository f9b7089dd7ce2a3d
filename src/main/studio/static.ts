// The built renderer (out/renderer) at `/`, with SPA fallback: a GET for any other
// non-API path answers index.html so client-side routes survive a reload. API paths
// (/api/, /internal/) never reach the static files, so they always answer JSON. Whether a
// build exists is checked per request: building the renderer while the studio runs works
// on the next reload.
import fs from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

const isApi = (p: string) => p === '/api' || p.startsWith('/api/') || p === '/internal' || p.startsWith('/internal/');

export function createStaticRouter(rendererDir: string): Router {
  const router = Router();
  const index = path.join(rendererDir, 'index.html');
  // No directory redirects: they answer HTML pages of their own.
  const files = express.static(rendererDir, { index: 'index.html', fallthrough: true, redirect: false });
  router.use((req, res, next) => {
    if (isApi(req.path)) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
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
