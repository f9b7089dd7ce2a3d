// The runtime's composition root: builds its parts in dependency order, each given only the
// narrow interface it needs, and serves them over HTTP (A2A JSON-RPC at POST /, the agent
// card, /healthz, /graph, the management API). Runs standalone and as the studio's child.
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { MemorySaver } from '@langchain/langgraph';
import { loadSettings, type RuntimeSettings } from './config.ts';
import { Registry, type MemoryConfig } from './project/registry.ts';
import { LogTraceSink, type TraceSink } from './observability/trace.ts';
import { NatsTraceSink } from './observability/trace-nats.ts';
import { OtlpTraceSink } from './observability/trace-otlp.ts';
import { newRuntimeStats } from './observability/stats.ts';
import { RuntimeMetrics, metricSources } from './observability/metrics.ts';
import { RegistryEvents } from './cluster/registry-events.ts';
import { ClusterControl } from './cluster/control.ts';
import { CancelRequests } from './cluster/cancels.ts';
import { controlHandlers } from './cluster/commands.ts';
import { natsDescription } from './cluster/nats-settings.ts';
import { OutboundPool } from './outbound/pool.ts';
import { McpManager } from './outbound/mcp.ts';
import { defaultReplicaId } from './store/postgres/store.ts';
import { memoryFromManifest, openStore } from './open-store.ts';
import type { Task } from '@a2a-js/sdk';
import type { MemoryStore } from './store/types.ts';
import { runtimeDataDir, sqliteStoreFile } from './store/location.ts';
import { startStoreRetention } from './store/retention-start.ts';
import { useRandomPool } from './tuning/random-pool.ts';
import { useLightRunContext } from './tuning/run-context.ts';
import { createSummarizer } from './memory/fold.ts';
import { GraphAgentExecutor } from './a2a/executor.ts';
import { ReplicaAwareRequestHandler, type SharedTasks } from './a2a/replicas.ts';
import { buildAgentCard } from './a2a/card.ts';
import { a2aRouter } from './a2a/routes.ts';
import { NOTIFICATION_BODIES, v1Bridge } from './a2a/v1/serve.ts';
import { isLoopbackAddress } from '../http/loopback.ts';
import { listen, runtimeServer } from './http/app.ts';
import { probeRouter } from './http/probes.ts';
import { Drain } from './http/drain.ts';
import { stopControls, type ShutdownReport } from './http/shutdown.ts';
import { SettlingTaskStore } from './a2a/settling.ts';
import { PushService } from './push/service.ts';
import { pushingTaskStore, taskChange } from './a2a/push-rpc.ts';
import type { PushStore } from './store/push-store.ts';
import { managementRouter } from './management/routes.ts';
import { runtimeStatus } from './management/status.ts';
import { CardUrlService } from './management/card-url.ts';
import { MemoryService } from './management/memory.ts';
import { announced, SharedSettings } from './management/runtime-settings.ts';
import { ThreadService } from './management/threads.ts';
import { RegistryService } from './management/registry-control.ts';
import { debugRoutes } from './debug/index.ts';
import { CallerAuthenticator } from './auth/credentials.ts';
import { callerAuthRouter, operatorGates } from './auth/middleware.ts';
import { cardSecurity } from './auth/card-security.ts';
import { insecureBindRefusal, servesInsecurely } from './auth/bind-policy.ts';
import { RuntimeStartError } from './http/app.ts';

export { RuntimeStartError } from './http/app.ts';

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
  /** --insecure: serve a non-loopback address without credentials (auth/bind-policy.ts). */
  insecure?: boolean;
}

export interface RunningRuntime {
  url: string;
  /** Parts callers (the CLI, tests) may read: the loaded project, the store, the log, whether
   * the thread endpoints answer (the CLI's start-up lines say when they do not). */
  context: { registry: Registry; store: MemoryStore; log: Logger; threads: Pick<ThreadService, 'status'> };
  /** Stops at once: open connections are cut. */
  close(): Promise<void>;
  /** Stops gracefully (SIGTERM; http/shutdown.ts): not ready, new work refused, in-flight
   * work given `graceMs` to finish, what still runs then ended `failed`, then closed. */
  drain(signal: string, graceMs: number): Promise<ShutdownReport>;
}

/** The parts every other part stands on: settings, log, outbound pool, MCP, the store and the
 * loaded project. */
interface Foundation {
  settings: RuntimeSettings;
  log: Logger;
  replica: string;
  outbound: OutboundPool;
  mcp: McpManager;
  cancels: CancelRequests;
  store: MemoryStore;
  /** The task table the processes on the store share. */
  shared: SharedTasks;
  push: PushStore; // push-notification configurations and outbox (store/push-store.ts)
  reaped: { notify: (tasks: Task[]) => void };
  memory: MemoryConfig;
  registry: Registry;
}

async function openFoundation(opts: RuntimeOptions, settings: RuntimeSettings, metrics: RuntimeMetrics): Promise<Foundation> {
  const projectDir = path.resolve(opts.projectDir);
  if (settings.randomPool) useRandomPool(); // D-38: LangChain's per-runnable UUIDs, without a system call each
  if (settings.lightRunContext) useLightRunContext(); // D-40: no disabled LangSmith RunTree per runnable call
  const log = opts.logger ?? pino({ name: 'agent-runtime', level: settings.logLevel }, pino.destination(2));
  const dataDir = runtimeDataDir(projectDir, opts.dataDir);
  const replica = settings.replicaId ?? defaultReplicaId();
  // spec 8: every outbound call (model, MCP, other agents, ctx.fetch) through one pool.
  const outbound = new OutboundPool(settings.outbound.maxConnections, settings.outbound.queueTimeoutMs);
  const mcp = new McpManager(projectDir, settings.env, log, outbound.fetch);
  const cancels = new CancelRequests();
  const { store, shared, push, reaped } = await openStore(settings, dataDir, replica, log, cancels, metrics);
  const memory: MemoryConfig = { enabled: true, backend: store.backend, summarize: false, window_size: 20, summarize_threshold: 40 };
  const registry = new Registry({
    projectDir,
    settings,
    initMemory: memoryFromManifest(memory, settings),
    checkpointer: () => (memory.enabled ? store.checkpointer(settings.agentId) : new MemorySaver()),
    memory,
    mcpTools: () => mcp.tools(),
    fetch: outbound.fetch,
    onInstall: async (gen, changed) => {
      if (changed.some((c) => c.kind === 'mcp_server')) await mcp.connect(gen.project.manifest.mcpServers);
    },
  });
  try {
    const gen = await registry.load();
    await mcp.connect(gen.project.manifest.mcpServers);
  } catch (err) {
    await mcp.close();
    await store.close();
    throw err;
  }
  return { settings, log, replica, outbound, mcp, cancels, store, shared, push, reaped, memory, registry };
}

/** The A2A side: the card, the executor running turns, and the SDK's request handler. */
function buildA2a(f: Foundation, extraSinks: TraceSink[]) {
  const { settings, log, registry, store, memory, replica } = f;
  const callers = new CallerAuthenticator(settings.auth, settings.controlToken);
  const card = Object.assign(buildAgentCard(registry.current, settings.publicAgentUrl ?? 'http://127.0.0.1/'), cardSecurity(callers));
  const stats = newRuntimeStats();
  const nats = settings.traceNats && settings.nats ? new NatsTraceSink({ ...settings.traceNats, nats: settings.nats, agentId: settings.agentId, log }) : null;
  const otlp = settings.traceOtlp ? new OtlpTraceSink({ ...settings.traceOtlp, agentId: settings.agentId, replicaId: replica, log }) : null;
  const sinks: TraceSink[] = [...(settings.traceLog ? [new LogTraceSink(log)] : []), ...(nats ? [nats] : []), ...(otlp ? [otlp] : []), ...extraSinks];
  const summarizer = createSummarizer(settings.env, registry.current.project.manifest.model, f.outbound.fetch);
  const executor = new GraphAgentExecutor({ registry, settings, sinks, log, stats, store, memory, summarizer });
  const control =
    settings.clusterControl && settings.nats
      ? new ClusterControl({ ...settings.clusterControl, nats: settings.nats, agentId: settings.agentId, replica, log })
      : null;
  const replicas = { tasks: f.shared, replica, leaseMs: settings.memoryStore.leaseMs, runsHere: (id: string) => executor.runsHere(id), control };
  // Counts the tasks started here that are not settled, for a draining runtime (http/drain.ts).
  const push = new PushService({ store: f.push, settings: settings.push, replica, log, bodies: NOTIFICATION_BODIES }); // notifies saved and reaped tasks (D-104)
  f.reaped.notify = (reaped) => reaped.forEach((t) => void push.notify(taskChange(t)));
  const tasks = new SettlingTaskStore(pushingTaskStore(push, store.taskStore()), log);
  tasks.onUnsaved = (id) => executor.abandon(id); // a task not stored is not run on (a2a/store-outage.ts)
  const handler = new ReplicaAwareRequestHandler(card, tasks, executor, replicas, { store, agentId: settings.agentId }, push);
  // A cancel asked on another replica, for a run of this one: cancel it here.
  f.cancels.listen(
    (id) =>
      void handler.cancelTask({ id }).catch((err: unknown) => log.warn({ task_id: id, err: (err as Error).message }, 'cancel asked by another replica failed')),
  );
  return { card, callers, stats, nats, otlp, executor, control, handler, tasks, push };
}

type A2aParts = ReturnType<typeof buildA2a>;

/** The management services, cluster control's handlers and the registry change events. */
function buildManagement(f: Foundation, a: A2aParts, loopback: boolean) {
  const { settings, log, memory, registry, store } = f;
  const { card, executor, handler, control } = a;
  // Settings changed through the API, shared by the replicas on the store (D-57).
  const shared = new SharedSettings({
    ...{ store: store.runtimeSettings(), agentId: settings.agentId, replica: f.replica, card, memory, log },
    ...{ cardUrlFrom: settings.publicAgentUrlFrom, refreshMs: settings.settingsRefreshMs },
  });
  const cardUrl = new CardUrlService({ card, settings, shared });
  const memoryService = new MemoryService({ memory, postgresDsn: settings.env.POSTGRES_DSN ?? null, shared });
  const registryService = new RegistryService(registry);
  const threads = new ThreadService({ memory, agentId: settings.agentId, store });
  control?.start(
    controlHandlers({
      tasks: { runsHere: (id) => executor.runsHere(id), cancelTask: (p) => handler.cancelTask(p), resubscribe: (p) => handler.resubscribe(p) },
      setCardUrl: (url) => shared.applyAnnounced(announced.cardUrl(url)),
      updateMemory: (values) => shared.applyAnnounced(announced.memory(values)),
      reload: () => registryService.reload(),
      log,
    }),
  );
  // spec 6.4: registry change events for this agent reload it like POST /api/v1/registry/reload.
  const registryEvents =
    settings.registryEvents && settings.nats
      ? new RegistryEvents({
          ...settings.registryEvents,
          nats: settings.nats,
          agentId: settings.agentId,
          replica: f.replica,
          reload: () => registryService.reload(),
          log,
        })
      : null;
  const status = () =>
    runtimeStatus({
      agentId: settings.agentId,
      threads,
      traceLog: settings.traceLog,
      card,
      stats: a.stats,
      mcp: f.mcp,
      outbound: f.outbound,
      traceSinks: { ...(a.nats ? { nats: a.nats } : {}), ...(a.otlp ? { otlp: a.otlp } : {}) },
      registryEvents,
      control,
      nats: settings.nats && natsDescription(settings.nats),
    });
  const { operatorKeys } = settings.auth;
  // RUNTIME_CONTROL_TOKEN alone keeps the studio child's other endpoints open to local tools;
  // anywhere else an operator credential guards the whole API (docs/security.md).
  const protectAll = operatorKeys.size > 0 || (settings.controlToken !== null && !loopback);
  const operator = operatorGates({ operatorKeys, controlToken: settings.controlToken, protectAll, callers: a.callers, log });
  const router = managementRouter({ cardUrl, memory: memoryService, threads, registry: registryService, status, control, settings, operator, log });
  return { router, registryEvents, threads, shared, operator };
}

export async function startRuntime(opts: RuntimeOptions): Promise<RunningRuntime> {
  const host = opts.host ?? '127.0.0.1';
  // Checked before anything opens: a runtime that would serve other machines unauthenticated does not start.
  const settings = loadSettings(path.resolve(opts.projectDir), opts.env ?? process.env);
  const bind = { host, auth: settings.auth, controlToken: settings.controlToken, insecureFlag: opts.insecure === true };
  const refusal = insecureBindRefusal(bind);
  if (refusal) throw new RuntimeStartError(refusal);
  const metrics = new RuntimeMetrics(settings.memoryStore.backend); // docs/operations.md, "Metrics"
  const f = await openFoundation(opts, settings, metrics);
  const { log, registry, store } = f;
  if (servesInsecurely(bind))
    log.warn({ host }, `--insecure: serving ${host} without caller and operator authentication; anyone who reaches it can call and manage this agent`);
  const a = buildA2a(f, opts.sinks ?? []);
  a.push.worker.onAttempt = (outcome) => metrics.pushAttempt(outcome);
  const loopback = isLoopbackAddress(host);
  const m = buildManagement(f, a, loopback);
  metrics.watch(metricSources({ executor: a.executor, store, agentId: settings.agentId, outbound: f.outbound, nats: a.nats, control: a.control, m }));
  const drain = new Drain(() => a.tasks.unsettled);
  a.tasks.onChange = () => drain.changed();
  const gate = { ...gateOptions(settings, a.stats, store), refusal: (m: string) => drain.rpcRefusal(m) };
  const server = runtimeServer({
    edge: { loopback, corsOrigins: settings.corsOrigins, replicaId: settings.replicaId ?? undefined }, // the header only with REPLICA_ID (D-55)
    drain,
    observe: { metrics, replica: f.replica, operator: m.operator.all },
    routers: [
      callerAuthRouter(a.callers, log),
      a2aRouter({
        handler: a.handler,
        v1: v1Bridge(a.handler, a.card, gate, (q) => store.listTasks(settings.agentId, q)), // D-86
        card: a.card,
        gate,
      }),
      probeRouter({ store, registry, activeTasks: () => a.executor.activeCount, draining: () => drain.reason }),
      debugRoutes(settings, registry, store, log, f.outbound.fetch),
      m.router,
    ],
    log,
  });
  // docs/deployment.md, "Retention": off unless a RETENTION_*_MAX_AGE is set.
  const retention = startStoreRetention(settings, sqliteStoreFile(runtimeDataDir(opts.projectDir, opts.dataDir)), log);
  const closeParts = async () => {
    await retention?.close();
    a.tasks.close();
    await a.push.close();
    await f.mcp.close();
    await m.registryEvents?.close();
    m.shared.close();
    await a.control?.close();
    await f.outbound.close();
    await a.nats?.close();
    await a.otlp?.close();
    await store.close();
  };
  let url: string;
  try {
    await m.shared.start();
    url = await listen(server, host, opts.port ?? 8080);
  } catch (err) {
    await closeParts();
    throw err;
  }
  a.push.start();
  m.shared.listening(url); // D-26: the card names the endpoint it is served on, unless a setting names another
  const stop = { server, drain, executor: a.executor, log, closeParts };
  return { url, context: { registry, store, log, threads: m.threads }, ...stopControls(stop) };
}

/** The JSON-RPC gate's view of the runtime: request counts, and the task waiting for input. */
function gateOptions(settings: RuntimeSettings, stats: { requests: Record<string, number> }, store: Pick<MemoryStore, 'waitingTask'>) {
  return {
    onRequest: (method: string) => {
      stats.requests[method] = (stats.requests[method] ?? 0) + 1;
    },
    waitingTask: (contextId: string) => store.waitingTask(settings.agentId, contextId),
    controlToken: settings.controlToken,
  };
}
