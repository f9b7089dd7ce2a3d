// The debugger's read endpoints (docs/playground-api.md, "The state at every step"), mounted
// under /api/playground/v1 beside the spec's routes: a session's checkpoints, one checkpoint's
// state with its step's diff, and the checkpoints one run wrote; and the fork of a run's thread
// at one of its checkpoints ("Fork and re-run from a checkpoint"); the loaded graph's state
// schema, what an edit may hold (GET /state-schema).
import { Router } from 'express';
import { ForkRunBodySchema, SessionCheckpointDetailQuerySchema, SessionCheckpointQuerySchema } from '../../../shared/thread-state.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import type { ForkService } from '../debug/fork.ts';
import type { ThreadStateService } from '../debug/thread-state.ts';

export function createThreadStateRoutes(states: ThreadStateService, forks: ForkService): Router {
  const router = Router();
  router.post('/runs/:run_id/fork', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res) => {
    const body = ForkRunBodySchema.parse(req.body ?? {});
    res.status(202).json(await forks.fork(req.params.run_id as string, body));
  });
  router.get('/sessions/:session_id/checkpoints', async (req, res) => {
    const q = SessionCheckpointQuerySchema.parse(req.query);
    res.json(await states.sessionPage(req.params.session_id, q.limit, q.cursor));
  });
  router.get('/sessions/:session_id/checkpoints/:checkpoint_id', async (req, res) => {
    const q = SessionCheckpointDetailQuerySchema.parse(req.query);
    res.json(await states.detail(req.params.session_id, req.params.checkpoint_id, q.ns));
  });
  router.get('/state-schema', async (_req, res) => {
    res.json(await states.stateSchema());
  });
  router.get('/runs/:run_id/checkpoints', async (req, res) => {
    res.json({ items: await states.runCheckpoints(req.params.run_id) });
  });
  return router;
}
