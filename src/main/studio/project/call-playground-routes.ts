// The playground for one model call under /api/playground/v1 (docs/playground-api.md,
// "Playground for one call"; D-100, D-101): send an edited call to the project's configured
// model (through the runtime: the studio never builds a model or reads its keys), find the
// literal a prompt came from in the project's source, and write an edited prompt back there
// through the one save path (save.ts) with its conflict check.
import fs from 'node:fs/promises';
import { Router } from 'express';
import { PlaygroundError } from '../../playground/errors.ts';
import { ApplySourceRequestSchema, ModelCallRequestSchema, SourceLiteralQuerySchema } from '../../../shared/call-playground.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import { projectFileForWrite } from '../../common/project-file.ts';
import type { RuntimeClient } from '../child/client.ts';
import { findLiterals, replaceLiteral } from '../source/literals.ts';
import { sha256 } from '../source/analysis.ts';
import { fileError, saveProjectFile, type SaveTarget } from './save.ts';

/** How long a send waits for a starting runtime. */
const SEND_WAIT_MS = 5_000;

export interface CallPlaygroundOptions extends SaveTarget {
  runtime: RuntimeClient;
}

export function createCallPlaygroundRoutes(o: CallPlaygroundOptions): Router {
  const router = Router();

  router.post('/model-calls', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res, next) => {
    try {
      const body = ModelCallRequestSchema.parse(req.body ?? {});
      const got = await o.runtime.modelCall(body, SEND_WAIT_MS);
      if (got.ok) return void res.json(got.value);
      if (got.reason === 'refused') {
        if (got.code === 'MODEL_NOT_CONFIGURED') throw new PlaygroundError('model_not_configured', got.message);
        throw new PlaygroundError('invalid_request', got.message, got.extra);
      }
      const why = got.reason === 'not_running' ? 'the runtime is not running' : `the runtime did not answer: ${got.detail}`;
      throw new PlaygroundError('runtime_unavailable', `${why}, so the call cannot be sent`);
    } catch (err) {
      next(err);
    }
  });

  router.post('/source-literals', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res, next) => {
    try {
      const { text } = SourceLiteralQuerySchema.parse(req.body ?? {});
      res.json({ literals: await findLiterals(o.projectDir, text) });
    } catch (err) {
      next(err);
    }
  });

  router.post('/source-literals/apply', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res, next) => {
    try {
      const body = ApplySourceRequestSchema.parse(req.body ?? {});
      const abs = await projectFileForWrite(o.projectDir, body.path).catch((err) => {
        throw fileError(err);
      });
      const current = await fs.readFile(abs, 'utf8').catch(() => null);
      if (current === null) throw new PlaygroundError('not_found', `no project file ${body.path}`, { path: body.path });
      if (sha256(current) !== body.base_sha256) {
        throw new PlaygroundError('file_changed', `${body.path} changed on disk since the prompt was found there: find it again, then apply`, {
          path: body.path,
          sha256: sha256(current),
        });
      }
      const next = replaceLiteral(body.path, current, body.original, body.edited, body.line);
      if (next === null) throw new PlaygroundError('not_found', `${body.path} holds no string or template literal with the original text`, { path: body.path });
      res.json(await saveProjectFile(o, body.path, next, body.base_sha256));
    } catch (err) {
      next(err);
    }
  });

  return router;
}
