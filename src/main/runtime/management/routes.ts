// management/ owns the management REST API (spec 4.2): routes, parameter schemas (zod),
// the envelope and its error table, and services that know nothing of express.
//
// The management REST API (spec 4.2) under /api/v1, with the legacy aliases of spec 9.5.
// Routes validate input and call services that know nothing of express.
import express, { type Request, type Response, type NextFunction } from 'express';
import { jsonBody } from '../../http/json-body.ts';
import { MANAGEMENT_BODY_LIMIT } from '../../http/limits.ts';
import type { Logger } from 'pino';
import type { RuntimeSettings } from '../config.ts';
import type { ClusterControl } from '../cluster/control.ts';
import { ManagementError, managementErrorHandler, ok } from './envelope.ts';
import type { CardUrlService } from './card-url.ts';
import type { MemoryService } from './memory.ts';
import type { ThreadService } from './threads.ts';
import type { RegistryService } from './registry-control.ts';
import { CardUrlSchema, DeleteAllThreadsQuerySchema, ListThreadsQuerySchema, MigrateAgentIdSchema, parseParams } from './schemas.ts';
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

/** What the management API works with, each part built by the composition root. */
export interface ManagementDeps {
  cardUrl: CardUrlService;
  memory: MemoryService;
  threads: ThreadService;
  registry: RegistryService;
  /** The GET /api/v1/status body (status.ts). */
  status: () => unknown;
  /** Cluster control (docs/deployment.md): a change made here reaches every replica; null when off. */
  control: Pick<ClusterControl, 'publish'> | null;
  settings: Pick<RuntimeSettings, 'internalRuntimeControl'>;
  /** Operator authentication (auth/middleware.ts, docs/security.md): `all` before every endpoint,
   * `registry` before the registry endpoints (RUNTIME_CONTROL_TOKEN alone protects only those
   * on a loopback-bound runtime, the studio's child). */
  operator: { all: express.RequestHandler; registry: express.RequestHandler };
  log: Logger;
}

export function managementRouter(deps: ManagementDeps): express.Router {
  const router = express.Router();
  const { cardUrl, memory, threads, registry, control } = deps;
  const body = jsonBody({ limit: MANAGEMENT_BODY_LIMIT });
  const token = deps.operator.registry;
  const errors = managementErrorHandler(deps.log);
  const api = express.Router();
  const status = route(() => deps.status());
  api.get('/status', status);
  api.get(
    '/card/url',
    route(() => cardUrl.describe()),
  );
  api.patch(
    '/card/url',
    body,
    route(async (req) => {
      const { url } = parseParams(CardUrlSchema, jsonObject(req, true));
      const r = await cardUrl.update(url);
      control?.publish({ op: 'card-url', url: r.url });
      return r;
    }),
  );
  api.get(
    '/memory/config',
    route(() => memory.config()),
  );
  api.patch(
    '/memory/config',
    body,
    route(async (req) => {
      const values = jsonObject(req, true);
      const r = await memory.update(values);
      control?.publish({ op: 'memory-config', values });
      return r;
    }),
  );
  mountThreads(api, threads, body);
  // spec 5.2: registry endpoints exist only with INTERNAL_RUNTIME_CONTROL_ENABLED=true.
  if (deps.settings.internalRuntimeControl) {
    api.get(
      REGISTRY_ROUTES.metadata,
      token,
      route(() => registry.metadata()),
    );
    api.post(
      REGISTRY_ROUTES.reload,
      token,
      body,
      route(async () => {
        const r = await registry.reload();
        control?.publish({ op: 'reload' });
        return r;
      }),
    );
  }
  api.use((req, _res, next) => next(new ManagementError('NOT_FOUND', `No management route ${req.method} /api/v1${req.path}.`)));
  api.use(errors);
  router.use(MANAGEMENT_BASE, deps.operator.all, api);
  // Legacy unversioned aliases (spec 9.5).
  router.get('/status', deps.operator.all, status, errors);
  if (deps.settings.internalRuntimeControl) {
    router.get(
      '/internal/runtime-metadata',
      deps.operator.all,
      token,
      route(() => registry.metadata()),
      errors,
    );
    router.post(
      '/internal/reload',
      deps.operator.all,
      token,
      body,
      route(() => registry.reload()),
      errors,
    );
  }
  return router;
}

/** The thread endpoints (spec 2.4). Each checks that thread operations can run (memory on,
 * AGENT_ID set) before it looks at its parameters. */
function mountThreads(api: express.Router, threads: ThreadService, body: express.RequestHandler): void {
  api.get(
    '/memory/threads',
    route((req) => {
      threads.agentId();
      return threads.list(parseParams(ListThreadsQuerySchema, req.query));
    }),
  );
  api.delete(
    '/memory/threads',
    route((req) => {
      threads.agentId();
      parseParams(DeleteAllThreadsQuerySchema, req.query);
      return threads.deleteAll();
    }),
  );
  api.get(
    '/memory/threads/:thread_id/messages',
    route((req) => threads.messages(req.params.thread_id as string)),
  );
  api.get(
    '/memory/threads//messages',
    route(() => threads.messages('')),
  );
  api.delete(
    '/memory/threads/:thread_id',
    route((req) => threads.delete(req.params.thread_id as string)),
  );
  api.post(
    '/memory/migrate-agent-id',
    body,
    route((req) => {
      const values = jsonObject(req, true);
      threads.agentId();
      return threads.migrate(parseParams(MigrateAgentIdSchema, values));
    }),
  );
}
