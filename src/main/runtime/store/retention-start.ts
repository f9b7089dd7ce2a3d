// Starts the retention job (store/retention.ts) on the store a runtime uses, when a
// RETENTION_*_MAX_AGE is set; null otherwise (nothing opened, nothing swept).
import type { Logger } from 'pino';
import type { RuntimeSettings } from '../config.ts';
import { retentionOn, startRetention, type RetentionJob } from './retention.ts';
import { sqliteRetention } from './retention-sqlite.ts';
import { postgresRetention } from './postgres/retention.ts';

export function startStoreRetention(settings: RuntimeSettings, sqliteFile: string, log: Logger): RetentionJob | null {
  const r = settings.retention;
  if (!retentionOn(r)) return null;
  const s = settings.memoryStore;
  const backend = s.backend === 'postgres' ? postgresRetention(s.dsn, s.schema) : sqliteRetention(sqliteFile);
  log.info(
    { tasks_max_age_s: r.tasksMaxAgeSeconds, checkpoints_max_age_s: r.checkpointsMaxAgeSeconds, interval_s: r.intervalSeconds, batch_size: r.batchSize },
    'retention on: finished tasks and idle threads past their age are deleted in the background',
  );
  return startRetention(r, backend, log);
}
