// The built renderer (out/renderer) at `/`, with SPA fallback: a GET for any other
// non-API path answers index.html so client-side routes survive a reload. Without a build,
// `/` explains how to make one; the API works either way.
import fs from 'node:fs';
import path from 'node:path';
import express, { Router } from 'express';

export function createStaticRouter(rendererDir: string): Router {
  const router = Router();
  const index = path.join(rendererDir, 'index.html');
  const isApi = (p: string) => p.startsWith('/api/') || p === '/api' || p.startsWith('/internal/');
  if (fs.existsSync(index)) {
    router.use(express.static(rendererDir, { index: 'index.html', fallthrough: true }));
    router.get(/.*/, (req, res, next) => {
      if (isApi(req.path)) return next();
      res.sendFile(index, { headers: { 'cache-control': 'no-cache' } });
    });
  } else {
    router.get(/.*/, (req, res, next) => {
      if (isApi(req.path)) return next();
      res
        .status(200)
        .type('text/plain')
        .send(
          'Agent Studio is running headless. The renderer is not built (no out/renderer/index.html):\n' +
            'run `npm run build:renderer` and reload. The Playground API is at /api/playground/v1.\n',
        );
    });
  }
  return router;
}
