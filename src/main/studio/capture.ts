// Trace capture endpoint: the runtime posts the contract's CaptureBody
// (src/shared/runtime-contract.ts) for every invocation that carried the reserved metadata
// key `svc.playground` (docs/decisions.md D-11). The body is a request, so it is read
// strictly. Only tokens the studio issued for an active run are accepted (unknown token:
// 404); the events become the run's `trace` events and, for `evaluation.result`, its scores.
import { Router } from 'express';
import { PlaygroundError } from '../playground/errors.ts';
import type { RunExecutor } from '../playground/executor/executor.ts';
import { jsonBody } from '../http/json-body.ts';
import { CAPTURE_PATH, StrictRuntimeSchemas } from '../../shared/runtime-contract.ts';

export { CAPTURE_PATH };

export function createCaptureRouter(executor: RunExecutor): Router {
  const router = Router();
  router.post(CAPTURE_PATH, jsonBody({ limit: '10mb' }), (req, res) => {
    const body = StrictRuntimeSchemas.CaptureBody.parse(req.body ?? {});
    if (!executor.capture(body.capture_token, body.events)) {
      throw new PlaygroundError('not_found', 'unknown capture token: it was not issued for an active run');
    }
    res.json({ accepted: body.events.length });
  });
  return router;
}
