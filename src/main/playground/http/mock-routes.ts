// Tool mocks (docs/playground-api.md, "Tool mocks"), mounted under /api/playground/v1: list,
// add, replace and delete a session's mocks. Bodies are checked against src/shared/mocks.ts;
// a refusal is `{detail: {error, message, issues}}` like every Playground error.
import { Router, type Request } from 'express';
import { MockInputSchema, SetMocksBodySchema } from '../../../shared/mocks.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import type { MockService } from '../mocks/mocks.ts';

export function createMockRoutes(mocks: MockService): Router {
  const router = Router();
  router.use(jsonBody({ limit: PLAYGROUND_BODY_LIMIT }));
  const bodyOf = (req: Request): unknown => req.body ?? {};

  router.get('/sessions/:session_id/mocks', (req, res) => {
    res.json({ items: mocks.list(req.params.session_id) });
  });
  router.post('/sessions/:session_id/mocks', (req, res) => {
    res.status(201).json(mocks.add(req.params.session_id, MockInputSchema.parse(bodyOf(req))));
  });
  router.put('/sessions/:session_id/mocks', (req, res) => {
    res.json({ items: mocks.set(req.params.session_id, SetMocksBodySchema.parse(bodyOf(req)).mocks) });
  });
  router.delete('/sessions/:session_id/mocks/:mock_id', (req, res) => {
    mocks.remove(req.params.session_id, req.params.mock_id);
    res.json({ items: mocks.list(req.params.session_id) });
  });
  router.get('/experiments/:experiment_id/mocks', (req, res) => {
    res.json({ items: mocks.experimentMocks(req.params.experiment_id) });
  });
  return router;
}
