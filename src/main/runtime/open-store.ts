// The runtime's memory store as start.ts opens it (docs/deployment.md): SQLite or PostgreSQL,
// every call's outage translated (store/guard.ts, D-50) and timed for /metrics; and the memory
// configuration every invocation reads live from the manifest (spec 2.3).
import type { Logger } from 'pino';
import type { Task } from '@a2a-js/sdk';
import type { RuntimeSettings } from './config.ts';
import type { MemoryConfig } from './project/registry.ts';
import type { RuntimeMetrics } from './observability/metrics.ts';
import type { CancelRequests } from './cluster/cancels.ts';
import { openSqliteStore } from './store/sqlite.ts';
import { openPostgresStore } from './store/postgres/store.ts';
import type { MemoryStore } from './store/types.ts';
import { sqliteStoreFile } from './store/location.ts';
import { StoreGuard } from './store/guard.ts';
import type { SharedTasks } from './a2a/replicas.ts';
import type { PushStore } from './store/push-store.ts';

/** The memory store (docs/deployment.md): SQLite by default, or PostgreSQL; either holds task
 * leases, so processes sharing it (replicas, `--workers`) see each other's tasks (`shared`). */
export async function openStore(
  settings: RuntimeSettings,
  dataDir: string,
  replica: string,
  log: Logger,
  cancels: CancelRequests,
  metrics: RuntimeMetrics,
): Promise<{ store: MemoryStore; shared: SharedTasks; push: PushStore; reaped: { notify: (tasks: Task[]) => void } }> {
  const s = settings.memoryStore;
  // Every store call's outage leaves the store as StoreUnavailableError (store/guard.ts, D-50).
  const guard = new StoreGuard(log);
  const reaped = { notify: (_tasks: Task[]) => undefined as void }; // push notifications of reaped tasks (push/service.ts)
  const lease = {
    log,
    onCancelRequested: cancels.report,
    onReaped: (tasks: Task[]) => {
      metrics.tasksReaped(tasks.length);
      for (const t of tasks) log.warn({ task_id: t.id, context_id: t.contextId }, 'task failed: the replica running it stopped (lease expired)');
      reaped.notify(tasks);
    },
  };
  const store: { taskStore(): SharedTasks; pushStore(): PushStore } & MemoryStore =
    s.backend !== 'postgres'
      ? openSqliteStore(sqliteStoreFile(dataDir), { replica, leaseMs: s.leaseMs, busyTimeoutMs: s.busyTimeoutMs, ...lease })
      : await openPostgresStore({ dsn: s.dsn, schema: s.schema, poolMax: s.poolMax, leaseMs: s.leaseMs, replica, lease });
  // Timed for /metrics (observability/metrics.ts) around the outage translation (store/guard.ts, D-50).
  return { store: metrics.instrument(guard.store(store)), shared: guard.part(store.taskStore()), push: guard.part(store.pushStore()), reaped };
}

/** The memory configuration every invocation reads live (spec 2.3): from the manifest at the
 * first load; MEMORY_ENABLED=false in the environment turns it off. Disabled memory writes
 * nothing to the store: thread state lives in process memory only. */
export function memoryFromManifest(memory: MemoryConfig, settings: RuntimeSettings) {
  return (m: { memory: { enabled: boolean; summarize: boolean; windowSize: number; summarizeThreshold: number } }) =>
    Object.assign(memory, {
      enabled: m.memory.enabled && !/^(0|false|no|off)$/i.test(settings.env.MEMORY_ENABLED ?? ''),
      summarize: m.memory.summarize,
      window_size: m.memory.windowSize,
      summarize_threshold: m.memory.summarizeThreshold,
    });
}
