// Conversation branches (docs/playground-api.md, "Conversation branches"), mounted under
// /api/playground/v1 beside the spec's routes: POST /runs/{run_id}/branch edits the run's user
// turn and continues the conversation from there in a new session, a branch.
import { Router } from 'express';
import { PLAYGROUND_PREFIX } from '../../../shared/playground.ts';
import { BranchSchema } from '../../../shared/playground-requests.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import type { BranchService } from '../branch.ts';

export function createBranchRoutes(branches: BranchService): Router {
  const router = Router();
  router.post('/runs/:run_id/branch', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res) => {
    const accepted = await branches.branch(req.params.run_id as string, BranchSchema.parse(req.body ?? {}));
    res.status(202).location(`${PLAYGROUND_PREFIX}/runs/${accepted.run_id}`).json(accepted);
  });
  return router;
}
