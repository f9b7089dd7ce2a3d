// Retention of the memory store (docs/deployment.md, "Retention"): a background job that
// deletes finished A2A tasks older than RETENTION_TASKS_MAX_AGE and the checkpoints of idle
// threads older than RETENTION_CHECKPOINTS_MAX_AGE, every RETENTION_INTERVAL, in short
// transactions of RETENTION_BATCH_SIZE tasks (or threads). A task that is not finished
// (submitted, working, input-required, auth-required) is never deleted, nor are the
// checkpoints of its thread. The backends (retention-sqlite.ts, postgres/retention.ts) hold
// the SQL; on PostgreSQL one replica sweeps at a time (an advisory lock).
import type { Logger } from 'pino';
import type { RetentionSettings } from '../settings-values.ts';

/** What one batch of a backend did. */
export interface ThreadBatch {
  /** The last thread id looked at (the next batch starts after it); null when none was left. */
  last: string | null;
  /** Threads whose checkpoints were deleted. */
  threads: number;
  /** Rows of the checkpoints table deleted (their blobs and pending writes went with them). */
  checkpoints: number;
}

/** One store's retention statements, each run in its own short transaction. */
export interface RetentionOps {
  /** Deletes up to `limit` finished tasks last updated before `before` (ISO); returns how many. */
  deleteTasks(before: string, limit: number): Promise<number>;
  /** Looks at up to `limit` threads after `after` (by id) and deletes the checkpoints of those
   * with no checkpoint at or after `before`, no task updated at or after it, no unfinished task. */
  clearThreads(before: string, after: string, limit: number): Promise<ThreadBatch>;
}

export interface RetentionBackend {
  /** Runs `sweep` holding the store's sweep lock; null when another process holds it. */
  exclusive<T>(sweep: (ops: RetentionOps) => Promise<T>): Promise<T | null>;
  close(): Promise<void>;
}

export interface SweepCounts {
  tasks: number;
  threads: number;
  checkpoints: number;
  /** Transactions run. */
  batches: number;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One sweep with the limits of `settings`, as of `now`; stops between batches once `stopped()`. */
export async function sweepOnce(ops: RetentionOps, settings: RetentionSettings, now = Date.now(), stopped = () => false): Promise<SweepCounts> {
  const counts: SweepCounts = { tasks: 0, threads: 0, checkpoints: 0, batches: 0 };
  const limit = settings.batchSize;
  if (settings.checkpointsMaxAgeSeconds !== null) {
    const before = new Date(now - settings.checkpointsMaxAgeSeconds * 1000).toISOString();
    let after: string | null = '';
    while (after !== null && !stopped()) {
      const batch = await ops.clearThreads(before, after, limit);
      counts.batches++;
      counts.threads += batch.threads;
      counts.checkpoints += batch.checkpoints;
      after = batch.last;
      await turn(); // other work runs between batches
    }
  }
  if (settings.tasksMaxAgeSeconds !== null) {
    const before = new Date(now - settings.tasksMaxAgeSeconds * 1000).toISOString();
    for (let n = limit; n === limit && !stopped();) {
      n = await ops.deleteTasks(before, limit);
      counts.batches++;
      counts.tasks += n;
      await turn();
    }
  }
  return counts;
}

export interface RetentionJob {
  /** Runs a sweep now (unless one is running); null when another process held the lock. */
  sweep(): Promise<SweepCounts | null>;
  /** Stops the timer, lets a running sweep end after its current batch, closes the backend. */
  close(): Promise<void>;
}

/** Whether any limit is set (else no job runs and nothing is opened). */
export const retentionOn = (s: RetentionSettings) => s.tasksMaxAgeSeconds !== null || s.checkpointsMaxAgeSeconds !== null;

/** Starts the job: the first sweep min(interval, 30 s) after the start, then one per interval.
 * A failed sweep (the store unreachable) is logged and tried again at the next interval. */
export function startRetention(settings: RetentionSettings, backend: RetentionBackend, log: Logger): RetentionJob {
  let running: Promise<SweepCounts | null> | null = null;
  let stopped = false;
  const sweep = () => {
    running ??= (async () => {
      const started = Date.now();
      try {
        const counts = await backend.exclusive((ops) => sweepOnce(ops, settings, started, () => stopped));
        const ms = Date.now() - started;
        if (counts === null) log.info({ retention: 'skipped' }, 'retention sweep skipped: another replica is sweeping the store');
        else
          log.info(
            {
              retention: 'swept',
              tasks_deleted: counts.tasks,
              threads_cleared: counts.threads,
              checkpoints_deleted: counts.checkpoints,
              batches: counts.batches,
              ms,
            },
            `retention sweep: deleted ${counts.tasks} finished task(s) and the checkpoints of ${counts.threads} idle thread(s) (${counts.checkpoints} checkpoint(s)) in ${ms} ms`,
          );
        return counts;
      } catch (err) {
        log.warn({ retention: 'failed', err: (err as Error).message }, 'retention sweep failed; the next interval tries again');
        return null;
      } finally {
        running = null;
      }
    })();
    return running;
  };
  const every = settings.intervalSeconds * 1000;
  let timer = setTimeout(
    function tick() {
      void sweep().finally(() => {
        if (!stopped) timer = setTimeout(tick, every).unref();
      });
    },
    Math.min(every, 30_000),
  ).unref();
  return {
    sweep,
    async close() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await backend.close();
    },
  };
}
