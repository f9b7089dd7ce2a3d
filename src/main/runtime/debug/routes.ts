// The debugger's endpoints on the runtime (src/shared/thread-state.ts, docs/playground-api.md
// "The state at every step"): a thread's checkpoints and one checkpoint's state. They exist
// only in a studio's child (RUNTIME_CONTROL_TOKEN set) and answer only to that token: not to
// callers' keys, not to operators' keys, never on the public A2A surface. Replies are in the
// management envelope (spec 2.1).
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { CheckpointDetailQuerySchema, CheckpointListQuerySchema, DEBUG_BASE, EditRequestSchema, ForkRequestSchema } from '../../../shared/thread-state.ts';
import { jsonBody } from '../../http/json-body.ts';
import { DEBUG_EDIT_BODY_LIMIT } from '../../http/limits.ts';
import { ManagementError, managementErrorHandler, ok } from '../management/envelope.ts';
import { jsonObject } from '../management/routes.ts';
import { parseParams } from '../management/schemas.ts';
import type { ThreadEditor } from './edit.ts';
import { invokeModelCall, type ModelCallDeps } from './model-call.ts';
import { MODEL_CALL_ROUTE, ModelCallRequestSchema } from '../../../shared/call-playground.ts';
import { InvalidEdit, type ThreadForker } from './fork.ts';
import { sameToken } from '../auth/api-keys.ts';
import { presentedCredential } from '../auth/credentials.ts';
import { CheckpointNotFound, type ThreadStateReader } from './state.ts';

export interface DebugRouteDeps {
  /** The studio's control token; null outside a studio (the routes do not exist then). */
  controlToken: string | null;
  reader: ThreadStateReader;
  /** Forks a thread at a checkpoint (fork.ts). */
  forker: ThreadForker;
  /** Edits a paused thread in place (edit.ts). */
  editor: ThreadEditor;
  /** The loaded graph's state schema (state-schema.ts). */
  schema: () => unknown;
  /** The playground's model call (model-call.ts, D-100). */
  modelCall: ModelCallDeps;
  log: Logger;
}

function controlGate(token: string) {
  return (req: Request, res: Response, next: NextFunction) => {
    const presented = presentedCredential(req);
    if (presented.kind === 'bearer' && sameToken(presented.token, token)) return next();
    res.setHeader('www-authenticate', 'Bearer realm="studio-control"');
    next(new ManagementError('UNAUTHORIZED', "The debugger's endpoints answer only to the studio that started this runtime (its control token)."));
  };
}

export function debugRouter({ controlToken, reader, forker, editor, schema, modelCall, log }: DebugRouteDeps): express.Router {
  const router = express.Router();
  if (!controlToken) return router;
  const api = express.Router();
  const handle = (fn: (req: Request) => Promise<unknown>) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      ok(res, await fn(req));
    } catch (err) {
      if (err instanceof CheckpointNotFound) return next(new ManagementError('CHECKPOINT_NOT_FOUND', err.message));
      next(err instanceof InvalidEdit ? new ManagementError('INVALID_BODY', err.message, err.detail) : err);
    }
  };
  api.get(
    '/threads/:thread_id/checkpoints',
    handle((req) => {
      const q = parseParams(CheckpointListQuerySchema, req.query);
      return reader.page(req.params.thread_id as string, q.limit, q.before, q.task_id);
    }),
  );
  api.get(
    '/threads/:thread_id/checkpoints/:checkpoint_id',
    handle((req) => {
      const q = parseParams(CheckpointDetailQuerySchema, req.query);
      return reader.detail(req.params.thread_id as string, req.params.checkpoint_id as string, q.ns, q.parent_values);
    }),
  );
  api.post(
    '/threads/:thread_id/fork',
    jsonBody({ limit: DEBUG_EDIT_BODY_LIMIT }),
    handle((req) => forker.fork(req.params.thread_id as string, parseParams(ForkRequestSchema, jsonObject(req, true)))),
  );
  api.post(
    '/threads/:thread_id/edit',
    jsonBody({ limit: DEBUG_EDIT_BODY_LIMIT }),
    handle((req) => editor.edit(req.params.thread_id as string, parseParams(EditRequestSchema, jsonObject(req, true)))),
  );
  api.post(
    MODEL_CALL_ROUTE,
    jsonBody({ limit: DEBUG_EDIT_BODY_LIMIT }),
    handle((req) => invokeModelCall(modelCall, parseParams(ModelCallRequestSchema, jsonObject(req, true)))),
  );
  api.get(
    '/state-schema',
    handle(async () => schema()),
  );
  api.use((req, _res, next) => next(new ManagementError('NOT_FOUND', `No debugger route ${req.method} ${DEBUG_BASE}${req.path}.`)));
  api.use(managementErrorHandler(log));
  router.use(DEBUG_BASE, controlGate(controlToken), api);
  return router;
}
