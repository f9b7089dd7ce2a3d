// GET/PUT/DELETE /api/runtime/connection (docs/studio-api.md, "Connection profile"): the header
// the Playground sends to its runtime. Answers the header and a masked hint, never the value;
// errors in the studio's `{detail: {...}}` shape, never with the value in them.
import { Router } from 'express';
import { jsonBody } from '../../http/json-body.ts';
import { ConnectionRequestSchema } from '../../../shared/studio-api.ts';
import { PlaygroundError } from '../../playground/errors.ts';
import type { ConnectionStore } from './store.ts';

export const CONNECTION_PATH = '/api/runtime/connection';

export function createConnectionRoutes(store: ConnectionStore): Router {
  const router = Router();
  router.use(CONNECTION_PATH, jsonBody({ limit: '64kb' }));

  router.get(CONNECTION_PATH, (_req, res) => {
    res.setHeader('cache-control', 'no-store');
    res.json(store.reply());
  });

  router.put(CONNECTION_PATH, (req, res, next) => {
    try {
      if (req.body === undefined) throw new PlaygroundError('invalid_request', 'send {"header": "X-API-Key", "value": "<key>"} as application/json');
      const parsed = ConnectionRequestSchema.safeParse(req.body);
      if (!parsed.success) {
        // Only the rule and where: zod's issues are built from the rules, never from the input.
        const first = parsed.error.issues[0]!;
        const where = first.path.length ? `${first.path.join('.')}: ` : '';
        throw new PlaygroundError('invalid_request', `${where}${first.message}`, { field: first.path[0] ?? null });
      }
      store.set(parsed.data);
      res.json(store.reply());
    } catch (err) {
      next(err);
    }
  });

  router.delete(CONNECTION_PATH, (_req, res, next) => {
    try {
      store.clear();
      res.json(store.reply());
    } catch (err) {
      next(err);
    }
  });

  router.all(CONNECTION_PATH, (req, _res, next) => {
    next(new PlaygroundError('method_not_allowed', `${req.method} is not allowed on ${CONNECTION_PATH}: use GET, PUT or DELETE`));
  });

  return router;
}
