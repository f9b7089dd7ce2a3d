// The management REST API (spec 4.2) under /api/v1, with the legacy aliases of spec 9.5.
// Routes validate input and call services that know nothing of express.
import express, { type Request, type Response, type NextFunction } from 'express';
import type { RuntimeContext } from '../server.ts';
import { ManagementError, managementErrorHandler, ok } from './envelope.ts';
import { CardUrlService } from './card-url.ts';
import { MemoryService } from './memory.ts';
import { ThreadService } from './threads.ts';
import { RegistryService } from './registry-control.ts';

type Handler = (req: Request, res: Response) => Promise<unknown> | unknown;

/** Wraps a handler: its return value becomes `data`, a throw becomes the envelope. */
function route(fn: Handler) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      ok(res, await fn(req, res));
    } catch (err) {
      next(err);
    }
  };
}

/** Reads a JSON object body; a body that is not JSON (or not an object) is INVALID_BODY. */
export function jsonObject(req: Request, required: boolean): Record<string, unknown> {
  const raw = typeof req.body === 'string' ? req.body : '';
  if (raw.trim() === '') {
    if (required) throw new ManagementError('INVALID_BODY', 'A JSON object body is required.');
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ManagementError('INVALID_BODY', 'The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ManagementError('INVALID_BODY', 'The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

export function mountManagement(app: express.Express, ctx: RuntimeContext): void {
  const card = new CardUrlService(ctx);
  const memory = new MemoryService(ctx);
  const threads = new ThreadService(ctx);
  const registry = new RegistryService(ctx);
  const body = express.text({ type: () => true, limit: '1mb' });

  const api = express.Router();
  const status = route(() => ({
    agent_id: ctx.settings.agentId,
    mcp: ctx.mcp.status(),
    a2a: {
      card_url: ctx.card.url,
      protocol_version: ctx.card.protocolVersion,
      streaming: ctx.card.capabilities.streaming === true,
      requests: { ...ctx.stats.requests },
      invocations: {
        total: ctx.stats.invocations,
        completed: ctx.stats.completed,
        failed: ctx.stats.failed,
        input_required: ctx.stats.input_required,
        canceled: ctx.stats.canceled,
      },
    },
  }));
  api.get('/status', status);

  api.get('/card/url', route(() => ({ url: ctx.card.url })));
  api.patch('/card/url', body, route((req) => card.update(jsonObject(req, true))));

  api.get('/memory/config', route(() => memory.config()));
  api.patch('/memory/config', body, route((req) => memory.patch(jsonObject(req, true))));
  api.get('/memory/threads', route(() => threads.list()));
  api.delete('/memory/threads', route((req) => threads.deleteAll(req.query.all)));
  api.get('/memory/threads/:thread_id/messages', route((req) => threads.messages(req.params.thread_id as string)));
  api.get('/memory/threads//messages', route(() => threads.messages('')));
  api.delete('/memory/threads/:thread_id', route((req) => threads.delete(req.params.thread_id as string)));
  api.post('/memory/migrate-agent-id', body, route((req) => threads.migrate(jsonObject(req, true))));

  // spec 5.2: registry endpoints exist only with INTERNAL_RUNTIME_CONTROL_ENABLED=true.
  if (ctx.settings.internalRuntimeControl) {
    api.get('/registry/metadata', route(() => registry.metadata()));
    api.post('/registry/reload', body, route(() => registry.reload()));
  }

  api.use((req, _res, next) => next(new ManagementError('NOT_FOUND', `No management route ${req.method} /api/v1${req.path}.`)));
  api.use(managementErrorHandler);
  app.use('/api/v1', api);

  // Legacy unversioned aliases (spec 9.5).
  app.get('/status', status, managementErrorHandler);
  if (ctx.settings.internalRuntimeControl) {
    app.get('/internal/runtime-metadata', route(() => registry.metadata()), managementErrorHandler);
    app.post('/internal/reload', body, route(() => registry.reload()), managementErrorHandler);
  }
}
