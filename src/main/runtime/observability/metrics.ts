// The runtime's Prometheus metrics (docs/operations.md, "Metrics"; D-53): one prom-client
// registry per runtime, served at GET /metrics behind the operator credential (metrics-route.ts).
// What is counted here: HTTP requests by method, route, JSON-RPC method and status, with
// latency (access-log.ts observes them); turns by end state (the A2A task saves,
// store-metrics.ts); store operations, their latency and failures; tasks running here and
// tasks waiting for input; the outbound pool; the NATS connections; and Node's own process
// metrics (CPU, memory, GC, event-loop lag) from collectDefaultMetrics.
import client from 'prom-client';
import type { TaskState } from '@a2a-js/sdk';
import type { MemoryStore } from '../store/types.ts';
import { instrumentStore } from './store-metrics.ts';

const PREFIX = 'agent_runtime_';

/** Seconds; a streamed answer's request lasts as long as its turn. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const STORE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const TURN_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/** A turn is running while its task's last save was one of these (spec 3). */
const IN_PROGRESS: ReadonlySet<TaskState> = new Set<TaskState>(['submitted', 'working']);

/** The parts the gauges read when scraped; set once they exist (start.ts). */
export interface MetricSources {
  /** Turns running in this process now. */
  activeTasks: () => number;
  /** The agent's tasks waiting for input (input-required), in the shared store. */
  waitingTasks: () => Promise<number>;
  outbound: () => { limit: number; in_use: number; queued: number };
  /** Each NATS connection the runtime keeps, by feature, and whether it is up. */
  nats: () => Record<string, boolean>;
}

export class RuntimeMetrics {
  readonly registry = new client.Registry();
  private sources: MetricSources | null = null;
  /** The last count of waiting tasks, kept when the store does not answer. */
  private waiting: number | null = null;
  /** Tasks whose turn runs, with the time their first in-progress save was seen. */
  private readonly started = new Map<string, number>();

  private readonly httpRequests = new client.Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by HTTP method, route, JSON-RPC method (POST /) and status.',
    labelNames: ['method', 'route', 'rpc_method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new client.Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time from a request to the end of its answer (a stream: to its last event).',
    labelNames: ['method', 'route', 'rpc_method', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });
  private readonly turns = new client.Counter({
    name: `${PREFIX}turns_total`,
    help: 'Turns (one A2A message each) ended in this process, by the state they ended in.',
    labelNames: ['state'] as const,
    registers: [this.registry],
  });
  private readonly turnDuration = new client.Histogram({
    name: `${PREFIX}turn_duration_seconds`,
    help: "Time from a turn's first save to its end, by end state.",
    labelNames: ['state'] as const,
    buckets: TURN_BUCKETS,
    registers: [this.registry],
  });
  private readonly storeDuration = new client.Histogram({
    name: `${PREFIX}store_operation_duration_seconds`,
    help: 'Memory store operations (threads, checkpoints, tasks), by backend and operation, failed ones included.',
    labelNames: ['backend', 'operation'] as const,
    buckets: STORE_BUCKETS,
    registers: [this.registry],
  });
  private readonly storeErrors = new client.Counter({
    name: `${PREFIX}store_errors_total`,
    help: 'Memory store operations that failed, by backend and operation.',
    labelNames: ['backend', 'operation'] as const,
    registers: [this.registry],
  });
  private readonly reaped = new client.Counter({
    name: `${PREFIX}tasks_reaped_total`,
    help: 'Tasks this replica failed because the replica running them stopped renewing their lease.',
    registers: [this.registry],
  });

  private readonly pushAttempts = new client.Counter({
    name: `${PREFIX}push_notification_attempts_total`,
    help: 'Push-notification deliveries this replica tried, by outcome: delivered, retried (due again later), failed (given up).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  constructor(readonly backend: string) {
    client.collectDefaultMetrics({ register: this.registry });
    // The gauges' collect() runs with the gauge as `this`; these read the runtime's parts.
    const sources = () => this.sources;
    const waiting = () => this.waiting;
    new client.Gauge({
      name: `${PREFIX}tasks_active`,
      help: 'Turns running in this process now.',
      registers: [this.registry],
      collect() {
        this.set(sources()?.activeTasks() ?? 0);
      },
    });
    new client.Gauge({
      name: `${PREFIX}tasks_waiting_input`,
      help: "The agent's tasks waiting for input (input-required) in the store, all replicas together (one count query per scrape).",
      registers: [this.registry],
      collect() {
        const v = waiting(); // counted by text() before the registry is read
        if (v !== null) this.set(v);
      },
    });
    const outbound = (name: string, help: string, key: 'limit' | 'in_use' | 'queued') =>
      new client.Gauge({
        name: `${PREFIX}outbound_${name}`,
        help,
        registers: [this.registry],
        collect() {
          const s = sources()?.outbound();
          if (s) this.set(s[key]);
        },
      });
    outbound('connections_limit', 'OUTBOUND_MAX_CONNECTIONS: outbound requests in flight at once.', 'limit');
    outbound('connections_in_use', 'Outbound requests in flight now (model, MCP, other agents, ctx.fetch).', 'in_use');
    outbound('queued', 'Outbound requests waiting for a free connection.', 'queued');
    new client.Gauge({
      name: `${PREFIX}nats_up`,
      help: 'Whether each NATS connection (by feature: trace, control, registry_events) is up: 1 or 0. Absent when no NATS feature is on.',
      labelNames: ['feature'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [feature, up] of Object.entries(sources()?.nats() ?? {})) this.set({ feature }, up ? 1 : 0);
      },
    });
  }

  /** The store, timed: every call observed here (store-metrics.ts). */
  instrument(store: MemoryStore): MemoryStore {
    return instrumentStore(store, this);
  }

  /** The parts the gauges read, once they are built. */
  watch(sources: MetricSources): void {
    this.sources = sources;
  }

  /** One answered HTTP request (access-log.ts). */
  request(labels: { method: string; route: string; rpc_method: string; status: string }, seconds: number): void {
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, seconds);
  }

  /** One store operation, `ok` or failed (store-metrics.ts). */
  storeOperation(operation: string, seconds: number, ok: boolean): void {
    const labels = { backend: this.backend, operation };
    this.storeDuration.observe(labels, seconds);
    if (!ok) this.storeErrors.inc(labels);
  }

  /** A task saved through this process: a turn starts with its first in-progress save and
   * ends with the next save in any other state (completed, failed, canceled, rejected,
   * input-required, auth-required), which counts it once. */
  taskSaved(taskId: string, state: TaskState): void {
    if (IN_PROGRESS.has(state)) {
      if (!this.started.has(taskId)) this.started.set(taskId, performance.now());
      return;
    }
    const since = this.started.get(taskId);
    if (since === undefined) return; // not a turn of this process (a repeated final save)
    this.started.delete(taskId);
    this.turns.inc({ state });
    this.turnDuration.observe({ state }, (performance.now() - since) / 1000);
  }

  tasksReaped(n: number): void {
    this.reaped.inc(n);
  }

  /** One push-notification attempt's outcome (push/worker.ts). */
  pushAttempt(outcome: 'delivered' | 'retried' | 'failed'): void {
    this.pushAttempts.inc({ outcome });
  }

  /** The exposition text (Prometheus text format 0.0.4). The store is asked first, so a
   * failed count shows in the same scrape's store_errors_total. */
  async text(): Promise<{ contentType: string; body: string }> {
    await this.countWaiting();
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  private async countWaiting(): Promise<void> {
    if (!this.sources) return;
    try {
      this.waiting = await this.sources.waitingTasks();
    } catch {
      // counted in store_errors_total; the last value stays
    }
  }
}

/** A NATS connection is up in these states (trace sink, cluster control, registry events). */
const NATS_UP = new Set(['connected', 'subscribed']);
type StateSource = { status(): { state: string } } | null | undefined;

/** The gauges' sources from the runtime's parts (start.ts). */
export function metricSources(p: {
  executor: { readonly activeCount: number };
  store: { waitingTaskCount(agentId: string): Promise<number> };
  agentId: string;
  outbound: { status(): { limit: number; in_use: number; queued: number } };
  nats: StateSource;
  control: StateSource;
  m: { registryEvents: StateSource };
}): MetricSources {
  const features: [string, StateSource][] = [
    ['trace', p.nats],
    ['control', p.control],
    ['registry_events', p.m.registryEvents],
  ];
  return {
    activeTasks: () => p.executor.activeCount,
    waitingTasks: () => p.store.waitingTaskCount(p.agentId),
    outbound: () => p.outbound.status(),
    nats: () => Object.fromEntries(features.flatMap(([name, s]) => (s ? [[name, NATS_UP.has(s.status().state)]] : []))),
  };
}
