// The playground for one model call under /api/playground/v1 (docs/playground-api.md,
// "Playground for one call"; D-100, D-101): send an edited call to the project's configured
// model (through the runtime: the studio never builds a model or reads its keys), find the
// literal a prompt came from in the project's source or the manifest's prompt file it holds
// (D-105), and write an edited prompt back there through the one save path (save.ts) with its
// conflict check.
import fs from 'node:fs/promises';
import { Router } from 'express';
import { PlaygroundError } from '../../playground/errors.ts';
import { ApplySourceRequestSchema, ModelCallRequestSchema, SourceLiteralQuerySchema } from '../../../shared/call-playground.ts';
import { jsonBody } from '../../http/json-body.ts';
import { PLAYGROUND_BODY_LIMIT } from '../../http/limits.ts';
import { projectFileForWrite } from '../../common/project-file.ts';
import type { RuntimeClient } from '../child/client.ts';
import { findLiterals, replaceLiteral } from '../source/literals.ts';
import { editedPromptFile, findPromptFiles, manifestPrompts, samePath } from '../source/prompt-files.ts';
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
      res.json({ literals: [...(await findLiterals(o.projectDir, text)), ...(await findPromptFiles(o.projectDir, text))] });
    } catch (err) {
      next(err);
    }
  });

  router.post('/source-literals/apply', jsonBody({ limit: PLAYGROUND_BODY_LIMIT }), async (req, res, next) => {
    try {
      const body = ApplySourceRequestSchema.parse(req.body ?? {});
      if (body.kind === 'prompt_file' && !Object.values(await manifestPrompts(o.projectDir)).some((p) => samePath(p, body.path))) {
        throw new PlaygroundError('not_found', `${body.path} is not a prompt file of agent.json's "prompts"`, { path: body.path });
      }
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
      if (body.kind === 'prompt_file') {
        res.json(await saveProjectFile(o, body.path, promptFileText(body.path, current, body.original, body.edited), body.base_sha256));
        return;
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

/** The prompt file's new text from the edited message, or why it cannot be applied (D-105). */
function promptFileText(rel: string, current: string, original: string, edited: string): string {
  const r = editedPromptFile(original, edited, current);
  if (r.ok) return r.content;
  if (r.reason === 'not_in_message') {
    throw new PlaygroundError('not_found', `the original message does not hold the text of ${rel}`, { path: rel, reason: 'not_in_message' });
  }
  throw new PlaygroundError(
    'invalid_request',
    `the edit changes text outside ${rel}'s part of the message (the text the code adds before or after the prompt): only an edit inside that part can be applied to ${rel}`,
    { path: rel, reason: 'edit_outside_prompt_file' },
  );
}
