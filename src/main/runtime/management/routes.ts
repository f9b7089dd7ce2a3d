// The management REST API (spec 4.2) under /api/v1, with the legacy aliases of spec 9.5.
// Routes validate input and call services that know nothing of express.
import { timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response, type NextFunction } from 'express';
import { jsonBody } from '../../http/json-body.ts';
import { MANAGEMENT_BODY_LIMIT } from '../../http/limits.ts';
import type { RuntimeContext } from '../server.ts';
import { ManagementError, managementErrorHandler, ok } from './envelope.ts';
import { CardUrlService } from './card-url.ts';
import { MemoryService } from './memory.ts';
import { ThreadService } from './threads.ts';
import { RegistryService } from './registry-control.ts';
import { MANAGEMENT_BASE, REGISTRY_ROUTES } from '../../../shared/runtime-contract.ts';

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

/** The JSON object body (parsed by jsonBody: application/json only, 415 otherwise). */
export function jsonObject(req: Request, required: boolean): Record<string, unknown> {
  const parsed: unknown = req.body;
  if (parsed === undefined) {
    if (required) throw new ManagementError('INVALID_BODY', 'A JSON object body (Content-Type: application/json) is required.');
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ManagementError('INVALID_BODY', 'The request body must be a JSON object.');
  }
  return parsed as Record<string, unknown>;
}

/** With RUNTIME_CONTROL_TOKEN set, the registry endpoints need `Authorization: Bearer <token>`
 * (the studio sets a new token for every start of its child; docs/security.md). */
function requireControlToken(token: string | null) {
  const expected = token ? Buffer.from(`Bearer ${token}`) : null;
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!expected) return next();
    const given = Buffer.from(req.headers.authorization ?? '');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return next();
    next(new ManagementError('UNAUTHORIZED', 'The registry endpoints of this runtime need its control token (Authorization: Bearer <RUNTIME_CONTROL_TOKEN>).'));
  };
}

export function mountManagement(app: express.Express, ctx: RuntimeContext): void {
  const card = new CardUrlService(ctx);
  const memory = new MemoryService(ctx);
  const threads = new ThreadService(ctx);
  const registry = new RegistryService(ctx);
  const body = jsonBody({ limit: MANAGEMENT_BODY_LIMIT });
  const control = requireControlToken(ctx.settings.controlToken);
  const errors = managementErrorHandler(ctx.log);

  const api = express.Router();
  const status = route(() => ({
    agent_id: ctx.settings.agentId,
    mcp: ctx.mcp.status(),
    trace_sinks: { ...(ctx.settings.traceLog ? { log: { state: 'on' } } : {}), ...ctx.traceSinks() },
    registry_events: ctx.registryEvents(),
    cluster_control: ctx.control?.status() ?? null,
    outbound: ctx.outbound(),
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
  // With cluster control (docs/deployment.md), a change made here reaches every replica.
  api.patch(
    '/card/url',
    body,
    route((req) => {
      const r = card.update(jsonObject(req, true));
      ctx.control?.publish({ op: 'card-url', url: r.url });
      return r;
    }),
  );

  api.get('/memory/config', route(() => memory.config()));
  api.patch(
    '/memory/config',
    body,
    route((req) => {
      const values = jsonObject(req, true);
      const r = memory.patch(values);
      ctx.control?.publish({ op: 'memory-config', values });
      return r;
    }),
  );
  api.get('/memory/threads', route(() => threads.list()));
  api.delete('/memory/threads', route((req) => threads.deleteAll(req.query.all)));
  api.get('/memory/threads/:thread_id/messages', route((req) => threads.messages(req.params.thread_id as string)));
  api.get('/memory/threads//messages', route(() => threads.messages('')));
  api.delete('/memory/threads/:thread_id', route((req) => threads.delete(req.params.thread_id as string)));
  api.post('/memory/migrate-agent-id', body, route((req) => threads.migrate(jsonObject(req, true))));

  // spec 5.2: registry endpoints exist only with INTERNAL_RUNTIME_CONTROL_ENABLED=true.
  if (ctx.settings.internalRuntimeControl) {
    api.get(REGISTRY_ROUTES.metadata, control, route(() => registry.metadata()));
    api.post(
      REGISTRY_ROUTES.reload,
      control,
      body,
      route(async () => {
        const r = await registry.reload();
        ctx.control?.publish({ op: 'reload' });
        return r;
      }),
    );
  }

  api.use((req, _res, next) => next(new ManagementError('NOT_FOUND', `No management route ${req.method} /api/v1${req.path}.`)));
  api.use(errors);
  app.use(MANAGEMENT_BASE, api);

  // Legacy unversioned aliases (spec 9.5).
  app.get('/status', status, errors);
  if (ctx.settings.internalRuntimeControl) {
    app.get('/internal/runtime-metadata', control, route(() => registry.metadata()), errors);
    app.post('/internal/reload', control, body, route(() => registry.reload()), errors);
  }
}
