// The headless studio: the Playground API under /api/playground/v1 on
// 127.0.0.1, the supervised agent runtime, the trace capture endpoint and the built
// renderer at `/`. `agent-studio serve` and the Electron shell both call startStudio.
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import pino, { type Logger } from 'pino';
import { PLAYGROUND_PREFIX } from '../../shared/playground.ts';
import { PlaygroundError } from '../playground/errors.ts';
import { EventBus } from '../playground/events/bus.ts';
import { EventLog } from '../playground/events/log.ts';
import { RunExecutor } from '../playground/executor/executor.ts';
import type { RuntimeHandle } from '../playground/executor/runtime.ts';
import { errorHandler, notFoundRoute } from '../playground/http/errors.ts';
import { createPlaygroundRouter } from '../playground/http/router.ts';
import { createBundleRoutes } from '../playground/bundles/routes.ts';
import { PlaygroundService } from '../playground/service.ts';
import { BlobStore } from '../playground/store/blobs.ts';
import { PlaygroundStore } from '../playground/store/store.ts';
import { CAPTURE_PATH, createCaptureRouter } from './capture.ts';
import { captureFirst } from './capture-fast.ts';
import { lockDataDir } from './lock.ts';
import { repoRoot } from './paths.ts';
import { hostOriginGuard, LOOPBACK_NAMES } from './security.ts';
import { requestTargetGuard } from '../http/request-target.ts';
import { edgeServer } from '../http/server.ts';
import { createStaticRouter } from './static.ts';
import { ProjectState } from './project/state.ts';
import { ProjectWatcher } from './project/watcher.ts';
import { createStudioRoutes } from './project/studio-routes.ts';
import { createProjectPlaygroundRoutes, runtimeContracts } from './project/playground-routes.ts';
import { createCallPlaygroundRoutes } from './project/call-playground-routes.ts';
import { SourceAnalysis } from './source/client.ts';
import { RuntimeClient } from './child/client.ts';
import { createConnectionRoutes } from './connection/routes.ts';
import { ConnectionStore } from './connection/store.ts';
import type { RuntimeCommand } from './child/command.ts';
import { RuntimeSupervisor, type SupervisorStatus } from './child/supervisor.ts';
import { TraceSinkStateSchema, type RuntimeStatusReply, type TraceSinksReply } from '../../shared/studio-api.ts';
import { createThreadStateRoutes } from '../playground/http/state-routes.ts';
import { createBranchRoutes } from '../playground/http/branch-routes.ts';
import { BranchService } from '../playground/branch.ts';
import { ThreadStateService } from '../playground/debug/thread-state.ts';
import { ForkService } from '../playground/debug/fork.ts';
import { BreakpointService } from '../playground/debug/breakpoints.ts';
import { createBreakpointRoutes } from '../playground/http/breakpoint-routes.ts';
import { MockService } from '../playground/mocks/mocks.ts';
import { createMockRoutes } from '../playground/http/mock-routes.ts';
import { PausedStateEditor } from '../playground/debug/edit.ts';
import { ExperimentStore } from '../playground/experiments/store.ts';
import { DatasetService } from '../playground/experiments/datasets.ts';
import { ExperimentRunner } from '../playground/experiments/runner.ts';
import { createExperimentRoutes } from '../playground/experiments/routes.ts';
import { UsageReader } from '../playground/usage.ts';
import { createJudge, modelEnv, modelSettings } from '../playground/experiments/judge.ts';
import { saveProjectFile } from './project/save.ts';

export interface StudioOptions {
  projectDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Loopback only: 127.0.0.1 (default) or localhost; anything else is refused (spec 5.1). */
  host?: string;
  /** Holds playground.sqlite, blobs/ and runtime/ (default: <project>/.agent-studio/studio). */
  dataDir?: string;
  /** How to start the runtime child; `false` runs the studio with no runtime at all. */
  runtimeCommand?: RuntimeCommand | false;
  /** The built renderer (default: <repo>/out/renderer). */
  rendererDir?: string;
  /** Serves the renderer until `rendererDir` holds a build (renderer-build.ts prepareRenderer). */
  rendererDev?: RequestHandler;
  /** Further origins allowed to call the API (e.g. a renderer served from elsewhere). */
  allowedOrigins?: string[];
  logger?: Logger;
  /** How long a run's preparing phase waits for a starting runtime (default 30 s). */
  runtimeReadyTimeoutMs?: number;
  /** Restart backoff of the runtime child, in ms (tests shorten it). */
  runtimeBackoffMs?: number[];
}

export interface RunningStudio {
  /** e.g. http://127.0.0.1:4280/ */
  url: string;
  port: number;
  projectDir: string;
  dataDir: string;
  runtime: {
    status(): SupervisorStatus | null;
    waitReady(timeoutMs: number): Promise<string | null>;
  };
  /** Datasets and experiments (docs/playground-api.md): `agent-studio eval` drives them in-process. */
  experiments: { datasets: DatasetService; runner: ExperimentRunner; store: ExperimentStore; usage: UsageReader };
  /** Graceful stop: active runs end `interrupted`, reason `studio_shutdown`; the runtime
   * child is stopped; the store is closed. */
  close(): Promise<void>;
}

export class StudioStartError extends Error {
  override readonly name = 'StudioStartError';
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** spec 5.1: the Playground is usable only on loopback; the studio binds 127.0.0.1 only. */
export function checkLoopbackHost(host: string | undefined): void {
  if (host === undefined || (LOOPBACK_NAMES as readonly string[]).includes(host.toLowerCase())) return;
  throw new StudioStartError(
    `--host ${host} is refused: the studio serves the Playground API on loopback only (127.0.0.1), ` +
      'so other machines and web pages cannot drive your agent. To reach it from elsewhere, use an SSH tunnel ' +
      '(ssh -L PORT:127.0.0.1:PORT) rather than binding another address.',
    'NON_LOOPBACK_HOST',
  );
}

export async function startStudio(opts: StudioOptions): Promise<RunningStudio> {
  checkLoopbackHost(opts.host);
  const projectDir = path.resolve(opts.projectDir);
  if (!fs.existsSync(projectDir) || !fs.statSync(projectDir).isDirectory()) {
    throw new StudioStartError(`the project folder ${projectDir} does not exist`, 'NO_PROJECT');
  }
  const dataDir = path.resolve(opts.dataDir ?? path.join(projectDir, '.agent-studio', 'studio'));
  fs.mkdirSync(dataDir, { recursive: true });
  const logger = opts.logger ?? pino({ name: 'agent-studio', level: process.env.LOG_LEVEL ?? 'info' }, pino.destination(2));

  let unlock: () => void;
  try {
    unlock = lockDataDir(dataDir);
  } catch (err) {
    throw new StudioStartError((err as Error).message, 'DATA_DIR_IN_USE');
  }
  let store: PlaygroundStore;
  try {
    store = PlaygroundStore.open(path.join(dataDir, 'playground.sqlite'));
  } catch (err) {
    unlock();
    throw err;
  }
  const blobs = new BlobStore(path.join(dataDir, 'blobs'));
  const bus = new EventBus();
  const log = new EventLog(store, bus, { logger });
  const usage = new UsageReader(store, log);

  let port = 0;
  const captureUrl = () => `http://127.0.0.1:${port}${CAPTURE_PATH}`;
  const supervisor =
    opts.runtimeCommand === false
      ? null
      : new RuntimeSupervisor({
          projectDir,
          dataDir,
          get captureUrl() {
            return captureUrl();
          },
          logger,
          command: opts.runtimeCommand,
          backoffMs: opts.runtimeBackoffMs,
        });
  const runtime: RuntimeHandle = supervisor ?? noRuntime(projectDir);
  const connection = new ConnectionStore(dataDir, projectDir);
  const mocks = new MockService(store.db);
  const executor = new RunExecutor({
    connection: () => connection.get(),
    debug: (row) => breakpoints.controlFor(row),
    mocks: (row) => mocks.planFor(row.session_id),
    store,
    blobs,
    log,
    runtime,
    logger,
    readyTimeoutMs: opts.runtimeReadyTimeoutMs,
  });
  // Runs a crash left active end interrupted/studio_shutdown before anything else happens.
  const recovered = executor.recover();
  if (recovered > 0) logger.warn({ runs: recovered }, 'runs left active by an earlier studio ended interrupted (studio_shutdown)');

  const project = new ProjectState(projectDir, runtime, () => executor.activeCount > 0, logger, blobs);
  executor.attachProject(project);
  const sources = new SourceAnalysis(projectDir);
  const watcher = new ProjectWatcher(projectDir, (files) => project.changed(files));
  const service = new PlaygroundService({ store, blobs, log, executor, logger });
  const playground = createPlaygroundRouter({ service, store, bus, log, logger });
  const experimentStore = new ExperimentStore(store.db);
  const datasets = new DatasetService({ projectDir, store, blobs, save: (rel, content, base) => saveProjectFile({ projectDir, project }, rel, content, base) });
  const runner = new ExperimentRunner({
    projectDir,
    store,
    experiments: experimentStore,
    datasets,
    service,
    bus,
    log,
    code: () => project.caseCode(),
    snapshot: () => project.snapshot(),
    model: () => modelSettings(modelEnv(projectDir)),
    judge: () => createJudge(modelEnv(projectDir)),
    logger,
  });
  runner.recover();
  let closing = false;

  const app = express();
  app.disable('x-powered-by');
  app.use(requestTargetGuard());
  app.use(hostOriginGuard({ port: () => port, extraOrigins: opts.allowedOrigins }));
  app.use((req, _res, next) => {
    // The studio sends no CORS headers, so its own pages never need a preflight.
    if (req.method === 'OPTIONS')
      next(new PlaygroundError('method_not_allowed', 'the studio does not answer OPTIONS: it serves only its own pages and sends no CORS headers'));
    else next();
  });
  app.use((_req, res, next) => {
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('x-frame-options', 'DENY');
    next();
  });
  app.use((req, _res, next) => {
    if (closing && req.method !== 'GET') next(new PlaygroundError('studio_shutting_down', 'the studio is shutting down'));
    else next();
  });
  app.use(createCaptureRouter(executor));
  const runtimeStatus = (): RuntimeStatusReply => supervisor?.status() ?? { state: 'disabled' };
  const runtimeClient = new RuntimeClient(runtime);
  const breakpoints = new BreakpointService(store, runtime, runtimeClient);
  app.use(PLAYGROUND_PREFIX, createProjectPlaygroundRoutes({ sources, blobs, store, runtime: runtimeClient, runtimeStatus }));
  app.use(PLAYGROUND_PREFIX, createCallPlaygroundRoutes({ projectDir, project, runtime: runtimeClient }));
  app.use(
    PLAYGROUND_PREFIX,
    createBundleRoutes({
      store,
      blobs,
      log,
      logger,
      projectName: () => project.status().name,
      contracts: () => runtimeContracts(runtimeClient),
      experiments: experimentStore,
      datasets,
    }),
  );
  const threadStates = new ThreadStateService(store, runtimeClient);
  app.use(PLAYGROUND_PREFIX, createThreadStateRoutes(threadStates, new ForkService(store, service, runtimeClient)));
  app.use(PLAYGROUND_PREFIX, createBranchRoutes(new BranchService(store, blobs, service, threadStates, runtimeClient)));
  app.use(PLAYGROUND_PREFIX, createBreakpointRoutes({ breakpoints, service, store, editor: new PausedStateEditor(runtimeClient) }));
  app.use(PLAYGROUND_PREFIX, createMockRoutes(mocks));
  app.use(PLAYGROUND_PREFIX, createExperimentRoutes({ datasets, runner, experiments: experimentStore, service, usage, mocks }));
  app.use(PLAYGROUND_PREFIX, playground.router);
  app.use(createConnectionRoutes(connection));
  const traceSinks = async (): Promise<TraceSinksReply> => {
    const got = await runtimeClient.traceSinks(0);
    if (got.ok) {
      // Each sink as the studio's contract reads it; one it cannot read is left out.
      const sinks = Object.entries(got.value).flatMap(([name, v]) => {
        const parsed = TraceSinkStateSchema.safeParse(v);
        return parsed.success ? [[name, parsed.data] as const] : [];
      });
      return { available: true, trace_sinks: Object.fromEntries(sinks), reason: null };
    }
    return {
      available: false,
      trace_sinks: {},
      reason: got.reason === 'not_running' ? 'the runtime is not running' : `the runtime did not answer (${got.detail})`,
    };
  };
  app.use(createStudioRoutes({ projectDir, project, runtimeStatus, traceSinks, store, blobs, datasetDiagnostics: () => datasets.diagnostics() }));
  app.use(createStaticRouter(opts.rendererDir ?? path.join(repoRoot(), 'out', 'renderer'), opts.rendererDev));
  app.use(notFoundRoute);
  app.use(errorHandler(logger));

  const listener = captureFirst(app, { port: () => port, extraOrigins: opts.allowedOrigins, closing: () => closing, executor, logger });
  const server = edgeServer(listener, (status, message) => ({ detail: { error: status === 405 ? 'method_not_allowed' : 'invalid_request', message } }));
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    log.close();
    store.close();
    unlock();
    throw listenError(err as NodeJS.ErrnoException, opts.port ?? 0);
  }
  port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/`;
  supervisor?.start();
  await watcher.start();
  logger.info({ url, project: projectDir, data_dir: dataDir }, 'studio ready');

  let closed: Promise<void> | null = null;
  return {
    url,
    port,
    projectDir,
    dataDir,
    runtime: {
      status: () => supervisor?.status() ?? null,
      waitReady: (ms) => runtime.waitReady(ms),
    },
    experiments: { datasets, runner, store: experimentStore, usage },
    close() {
      closed ??= (async () => {
        closing = true;
        runner.shutdown();
        // Terminal events first, so open event streams deliver them and end by themselves.
        executor.shutdown();
        playground.endStreams();
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await Promise.race([stopped, new Promise((r) => setTimeout(r, 1000).unref())]);
        server.closeAllConnections();
        await watcher.close();
        await sources.close();
        await supervisor?.stop();
        log.close();
        store.close();
        unlock();
        logger.info({ url }, 'studio stopped');
      })();
      return closed;
    },
  };
}

function noRuntime(projectDir: string): RuntimeHandle {
  return {
    generation: 0,
    waitReady: async () => null,
    waitExit: async () => false,
    onExit: () => () => undefined,
    applyChanges: async () => ({ applied: 'restart' }),
    controlHeaders: () => ({}),
    recommendedRunCommand: () => `npx agent-studio runtime --project "${projectDir}" --port 8080`,
    unavailableDetail: () => 'the studio was started without a runtime',
  };
}

function listenError(err: NodeJS.ErrnoException, port: number): Error {
  let message = err.message;
  if (err.code === 'EADDRINUSE') message = `port ${port} on 127.0.0.1 is already in use: stop the other process or pass another --port (0 picks a free one)`;
  else if (err.code === 'EACCES') message = `no permission to listen on port ${port}: use a port above 1024`;
  return new StudioStartError(message, err.code);
}
