// The agent runtime's HTTP server: A2A JSON-RPC at POST /, the agent card, /healthz,
// /graph and the management API (spec 4.2). Runs standalone and as the studio's child.
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import pino, { type Logger } from 'pino';
import type { AgentCard } from '@a2a-js/sdk';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { loadSettings, type RuntimeSettings } from './config.ts';
import { Registry, type Generation, type MemoryConfig } from './registry.ts';
import { GraphAgentExecutor } from './executor.ts';
import { LogTraceSink, type TraceSink } from './trace.ts';
import { NatsTraceSink } from './trace-nats.ts';
import { RegistryEvents } from './registry-events.ts';
import { ClusterControl } from './cluster-control.ts';
import { OutboundPool } from './outbound.ts';
import { MemoryService } from './management/memory.ts';
import { RegistryService } from './management/registry-control.ts';
import { RequestMetaStore, jsonRpcGate } from './request-meta.ts';
import { edgeGuard, runtimeErrorHandler, runtimeNotFound } from './http-edge.ts';
import { requestTargetGuard, screenRequestTarget } from '../http/request-target.ts';
import { jsonBody } from '../http/json-body.ts';
import { isLoopbackAddress } from '../http/loopback.ts';
import { RUNTIME_RPC_BODY_LIMIT } from '../http/limits.ts';
import { answerClientErrors } from '../http/client-errors.ts';
import { openSqliteStore } from './store/sqlite.ts';
import { defaultReplicaId, openPostgresStore } from './store/postgres/store.ts';
import type { PgTaskStore } from './store/postgres/taskStore.ts';
import { useRandomPool } from './random-pool.ts';
import { useLightRunContext } from './run-context.ts';
import { ReplicaAwareRequestHandler } from './replicas.ts';
import type { MemoryStore } from './store/types.ts';
import { describeGraph } from './graph-view.ts';
import { McpManager } from './mcp.ts';
import { createSummarizer } from './memory-fold.ts';
import { mountManagement } from './management/routes.ts';
import { MemorySaver } from '@langchain/langgraph';
import { AGENT_CARD_ROUTE, GRAPH_ROUTE, HEALTH_ROUTE } from '../../shared/runtime-contract.ts';

export interface RuntimeOptions {
  projectDir: string;
  host?: string;
  port?: number;
  /** Where the SQLite memory store lives (default: DIR/.agent-studio/runtime). */
  dataDir?: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  /** Extra trace sinks (tests, broker). */
  sinks?: TraceSink[];
}

export interface RuntimeStats {
  invocations: number;
  completed: number;
  failed: number;
  input_required: number;
  canceled: number;
  requests: Record<string, number>;
}

export interface RuntimeContext {
  settings: RuntimeSettings;
  registry: Registry;
  store: MemoryStore;
  memory: MemoryConfig;
  card: AgentCard;
  stats: RuntimeStats;
  log: Logger;
  projectDir: string;
  mcp: McpManager;
  listeningUrl: () => string;
  /** State and counters of the broker trace sinks (GET /api/v1/status). */
  traceSinks: () => Record<string, unknown>;
  /** State and counters of the registry change-event subscription, null when off. */
  registryEvents: () => unknown;
  /** The outbound connection pool's counters (GET /api/v1/status). */
  outbound: () => unknown;
  /** Cluster-wide control through NATS (CLUSTER_CONTROL=nats), null when off. */
  control: ClusterControl | null;
}

export interface RunningRuntime {
  url: string;
  context: RuntimeContext;
  close(): Promise<void>;
}

export class RuntimeStartError extends Error {
  override readonly name = 'RuntimeStartError';
}

export function buildAgentCard(gen: Generation, url: string): AgentCard {
  const m = gen.project.manifest;
  return {
    protocolVersion: '0.3.0',
    name: m.name,
    description: m.description,
    version: m.version,
    url,
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: false, stateTransitionHistory: false },
    defaultInputModes: m.inputModes,
    defaultOutputModes: m.outputModes,
    skills: m.skills.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      tags: s.tags,
      ...(s.examples ? { examples: s.examples } : {}),
      ...(s.inputModes ? { inputModes: s.inputModes } : {}),
      ...(s.outputModes ? { outputModes: s.outputModes } : {}),
    })),
  };
}

export async function startRuntime(opts: RuntimeOptions): Promise<RunningRuntime> {
  const projectDir = path.resolve(opts.projectDir);
  const settings = loadSettings(projectDir, opts.env ?? process.env);
  if (settings.randomPool) useRandomPool(); // D-38: LangChain's per-runnable UUIDs, without a system call each
  if (settings.lightRunContext) useLightRunContext(); // D-40: no disabled LangSmith RunTree per runnable call
  const log = opts.logger ?? pino({ name: 'agent-runtime', level: settings.env.LOG_LEVEL ?? 'info' }, pino.destination(2));
  const dataDir = path.resolve(opts.dataDir ?? path.join(projectDir, '.agent-studio', 'runtime'));
  // The memory store (docs/deployment.md): the replica callbacks reach the handler built below.
  const late: { handler?: ReplicaAwareRequestHandler } = {};
  const replica = settings.replicaId ?? defaultReplicaId();
  const store =
    settings.memoryStore.backend === 'postgres'
      ? await openPostgresStore({
          dsn: settings.memoryStore.dsn,
          schema: settings.memoryStore.schema,
          poolMax: settings.memoryStore.poolMax,
          leaseMs: settings.memoryStore.leaseMs,
          replica,
          lease: {
            log,
            // A cancel asked on another replica, for a run of this one: cancel it here.
            onCancelRequested: (ids) => {
              for (const id of ids) void late.handler?.cancelTask({ id }).catch((err: unknown) => log.warn({ task_id: id, err: (err as Error).message }, 'cancel asked by another replica failed'));
            },
            onReaped: (tasks) => {
              for (const t of tasks) log.warn({ task_id: t.id, context_id: t.contextId }, 'task failed: the replica running it stopped (lease expired)');
            },
          },
        })
      : openSqliteStore(path.join(dataDir, 'memory.sqlite'));
  const stats: RuntimeStats = { invocations: 0, completed: 0, failed: 0, input_required: 0, canceled: 0, requests: {} };
  // spec 8: every outbound call (model, MCP, other agents, ctx.fetch) through one pool.
  const outbound = new OutboundPool(settings.outbound.maxConnections, settings.outbound.queueTimeoutMs);
  const mcp = new McpManager(projectDir, settings.env, log, outbound.fetch);

  const memory: MemoryConfig = { enabled: true, backend: store.backend, summarize: false, window_size: 20, summarize_threshold: 40 };
  const registry = new Registry({
    projectDir,
    settings,
    // Memory starts from the manifest; MEMORY_ENABLED=false in the environment turns it off.
    // Disabled memory writes nothing to the store: thread state lives in process memory only.
    initMemory: (m) =>
      Object.assign(memory, {
        enabled: m.memory.enabled && !/^(0|false|no|off)$/i.test(settings.env.MEMORY_ENABLED ?? ''),
        summarize: m.memory.summarize,
        window_size: m.memory.windowSize,
        summarize_threshold: m.memory.summarizeThreshold,
      }),
    checkpointer: () => (memory.enabled ? store.checkpointer(settings.agentId) : new MemorySaver()),
    memory,
    mcpTools: () => mcp.tools(),
    fetch: outbound.fetch,
  });
  try {
    const gen = await registry.load();
    await mcp.connect(gen.project.manifest.mcpServers);
  } catch (err) {
    await mcp.close();
    await store.close();
    throw err;
  }
  registry.onInstall = async (gen, changed) => {
    if (changed.some((c) => c.kind === 'mcp_server')) await mcp.connect(gen.project.manifest.mcpServers);
  };

  let listeningUrl = '';
  const card = buildAgentCard(registry.current, settings.publicAgentUrl ?? 'http://127.0.0.1/');
  const requestMeta = new RequestMetaStore();
  const nats = settings.traceNats ? new NatsTraceSink({ ...settings.traceNats, agentId: settings.agentId, log }) : null;
  const sinks: TraceSink[] = [...(settings.traceLog ? [new LogTraceSink(log)] : []), ...(nats ? [nats] : []), ...(opts.sinks ?? [])];
  const summarizer = createSummarizer(settings.env, registry.current.project.manifest.model, outbound.fetch);
  const executor = new GraphAgentExecutor({ registry, settings, sinks, requestMeta, log, stats, store, memory, summarizer });
  const handler = new ReplicaAwareRequestHandler(card, store.taskStore(), executor);
  late.handler = handler;
  if (store.backend === 'postgres' && settings.memoryStore.backend === 'postgres') {
    handler.useReplicas({ tasks: store.taskStore() as PgTaskStore, replica, leaseMs: settings.memoryStore.leaseMs, runsHere: (id) => executor.runsHere(id), control: () => context.control });
  }

  const context: RuntimeContext = {
    settings,
    registry,
    store,
    memory,
    card,
    stats,
    log,
    projectDir,
    mcp,
    listeningUrl: () => listeningUrl,
    traceSinks: () => (nats ? { nats: nats.status() } : {}),
    outbound: () => outbound.status(),
    registryEvents: () => registryEvents?.status() ?? null,
    control: settings.clusterControl ? new ClusterControl({ ...settings.clusterControl, agentId: settings.agentId, replica, log }) : null,
  };
  context.control?.handle({
    // Only the replica running the task acts; the others have nothing to stop.
    cancel: (taskId) => {
      if (executor.runsHere(taskId)) void handler.cancelTask({ id: taskId }).catch((err: unknown) => log.warn({ task_id: taskId, err: (err as Error).message }, 'cancel from another replica failed'));
    },
    cardUrl: (url) => {
      card.url = url;
    },
    memoryConfig: (values) => {
      new MemoryService(context).patch(values);
    },
    reload: () => new RegistryService(context).reload(),
    follow: (taskId, publish, done) => {
      if (!executor.runsHere(taskId)) return false;
      void (async () => {
        try {
          for await (const event of handler.resubscribe({ id: taskId })) publish(event);
        } catch (err) {
          log.warn({ task_id: taskId, err: (err as Error).message }, 'following a task for another replica failed');
        } finally {
          done();
        }
      })();
      return true;
    },
  });
  // spec 6.4: registry change events for this agent reload it like POST /api/v1/registry/reload.
  const registryEvents = settings.registryEvents
    ? new RegistryEvents({ ...settings.registryEvents, agentId: settings.agentId, replica, reload: () => new RegistryService(context).reload(), log })
    : null;

  const app = express();
  app.disable('x-powered-by');
  let listeningPort = 0;
  app.use(requestTargetGuard());
  app.use(edgeGuard({ loopback: isLoopbackAddress(opts.host ?? '127.0.0.1'), port: () => listeningPort, corsOrigins: settings.corsOrigins, replicaId: replica }));
  // The JSON-RPC endpoint first: every message/send passes fewer routes (docs/performance.md).
  app.post(
    '/',
    jsonBody({ limit: RUNTIME_RPC_BODY_LIMIT }),
    jsonRpcGate(requestMeta, {
      onRequest: (method) => {
        stats.requests[method] = (stats.requests[method] ?? 0) + 1;
      },
      waitingTask: (contextId) => store.waitingTask(settings.agentId, contextId),
    }),
    jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  app.get(HEALTH_ROUTE, async (_req, res) => {
    try {
      await store.ping();
    } catch (err) {
      res.status(503).json({ status: 'unavailable', reason: `store not ready: ${(err as Error).message}` });
      return;
    }
    if (!registry.loaded) {
      res.status(503).json({ status: 'unavailable', reason: 'project not loaded' });
      return;
    }
    const gen = registry.current;
    res.json({ status: 'ok', agent: gen.project.manifest.name, version: gen.project.manifest.version, generation: gen.number, store: store.backend, active_tasks: executor.activeCount });
  });
  app.get(GRAPH_ROUTE, async (_req, res) => {
    res.json(await describeGraph(registry.current));
  });
  app.use(AGENT_CARD_ROUTE, agentCardHandler({ agentCardProvider: async () => card }));
  // D-26: the card's url is this endpoint; a client that GETs it finds the card there too.
  app.get('/', (_req, res) => {
    res.json(card);
  });
  mountManagement(app, context);
  app.use(runtimeNotFound);
  app.use(runtimeErrorHandler(log));

  const server = http.createServer((req, res) => {
    screenRequestTarget(req);
    app(req, res);
  });
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server, (status, message) => ({ success: false, data: null, error: { code: status === 405 ? 'NOT_FOUND' : 'BAD_REQUEST', message } }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      void store.close();
      if (err.code === 'EADDRINUSE') reject(new RuntimeStartError(`port ${opts.port} on ${opts.host ?? '127.0.0.1'} is already in use: stop the other process or pass another --port`));
      else if (err.code === 'EACCES') reject(new RuntimeStartError(`no permission to listen on port ${opts.port}: use a port above 1024`));
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND') reject(new RuntimeStartError(`cannot listen on host '${opts.host}': it is not an address of this machine`));
      else reject(err);
    });
    server.listen(opts.port ?? 8080, opts.host ?? '127.0.0.1', () => resolve());
  });
  const addr = server.address() as AddressInfo;
  listeningPort = addr.port;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  listeningUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${addr.port}/`;
  if (!settings.publicAgentUrl) card.url = listeningUrl;

  let closed = false;
  return {
    url: listeningUrl,
    context,
    async close() {
      if (closed) return;
      closed = true;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mcp.close();
      await registryEvents?.close();
      await context.control?.close();
      await outbound.close();
      await nats?.close();
      await store.close();
    },
  };
}
