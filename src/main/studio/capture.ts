// Trace capture endpoint (issue 3 section 7): the runtime posts
// `{capture_token, events: [{name, ts, ...fields}]}` for every invocation that carried the
// reserved metadata key `svc.playground`. Only tokens the studio issued for an active run
// are accepted (unknown token: 404); the events become the run's `trace` events and,
// for `evaluation.result`, its scores.
import { Router } from 'express';
import { z } from 'zod';
import { PlaygroundError } from '../playground/errors.ts';
import type { RunExecutor } from '../playground/executor/executor.ts';
import { jsonBody } from '../http/json-body.ts';

import { CAPTURE_PATH } from '../../shared/runtime-contract.ts';

export { CAPTURE_PATH };

const CaptureBody = z.object({
  capture_token: z.string().min(1),
  events: z.array(z.looseObject({ name: z.string().min(1) })).max(10_000),
});

export function createCaptureRouter(executor: RunExecutor): Router {
  const router = Router();
  router.post(CAPTURE_PATH, jsonBody({ limit: '10mb' }), (req, res) => {
    const body = CaptureBody.parse(req.body ?? {});
    if (!executor.capture(body.capture_token, body.events)) {
      throw new PlaygroundError('not_found', 'unknown capture token: it was not issued for an active run');
    }
    res.json({ accepted: body.events.length });
  });
  return router;
}
