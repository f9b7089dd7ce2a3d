// Checks of single setting values that config.ts would otherwise pass on raw (docs/deployment.md,
// "Settings"): each bad value is a SettingsError of one line naming the setting and what it
// expects. Kept free of heavy imports: the primary of `--workers N` uses logLevel() too.
import { SettingsError } from './settings-error.ts';
import { redactDsn } from './store/postgres/dsn.ts';
import { CheckpointDurabilitySchema, type CheckpointDurability } from '../../shared/thread-state.ts';

/** pino's levels (pino.levels.values plus `silent`). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL (info): one of LOG_LEVELS, any case. */
export function logLevel(env: Record<string, string | undefined>): LogLevel {
  const raw = env.LOG_LEVEL?.trim();
  if (!raw) return 'info';
  const level = raw.toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) throw new SettingsError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got '${raw}'`);
  return level;
}

/** POSTGRES_DSN: a postgres:// or postgresql:// URL naming a host (or a socket folder in ?host=). The error shows the value
 * with its password masked (store/postgres/dsn.ts). */
export function postgresDsn(dsn: string): string {
  const expected = 'POSTGRES_DSN must be a URL such as postgresql://user:password@host:5432/database';
  let u: URL;
  try {
    u = new URL(dsn);
  } catch {
    throw new SettingsError(`${expected}, got '${redactDsn(dsn)}'`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') throw new SettingsError(`${expected}, got the scheme '${u.protocol}' in '${redactDsn(dsn)}'`);
  // A Unix socket names its folder in ?host= (libpq, pg's connection string parser).
  if (!u.hostname && !u.searchParams.get('host')) throw new SettingsError(`${expected}, got no host in '${redactDsn(dsn)}'`);
  return dsn;
}

/** PORT (8080), read when --port is not given: an integer 0..65535. */
export function portSetting(env: Record<string, string | undefined>, fallback: number): number {
  const raw = env.PORT?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > 65535) throw new SettingsError(`PORT must be an integer between 0 and 65535, got '${raw}'`);
  return Number(raw);
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration in whole seconds: `3600`, `90s`, `30m`, `72h`, `7d`; 0 means no limit. */
export function durationSeconds(name: string, raw: string): number {
  const m = /^(\d+)\s*([smhd]?)$/i.exec(raw.trim());
  if (!m) throw new SettingsError(`${name} must be a duration such as 7d, 72h, 30m, 90s or a number of seconds (0: no limit), got '${raw}'`);
  return Number(m[1]) * UNITS[(m[2] || 's').toLowerCase()];
}

const SIZE_UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/** A size in bytes: `1073741824`, `512MiB`, `1GiB` (K/M/G and KB/MB/GB are binary too); -1 means no limit. */
export function sizeBytes(name: string, raw: string): number {
  const s = raw.trim();
  if (s === '-1') return -1;
  const m = /^(\d+)\s*([a-z]*)$/i.exec(s);
  const unit = m ? SIZE_UNITS[m[2].toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) === 0)
    throw new SettingsError(`${name} must be a size such as 1GiB, 512MiB or a number of bytes (-1: no limit), got '${raw}'`);
  return Number(m[1]) * unit;
}

/** The limits of the JetStream trace stream (docs/runtime-traces.md, "NATS"); old messages are discarded. */
export interface TraceStreamLimits {
  /** TRACE_NATS_MAX_AGE (7d); 0: no limit. */
  maxAgeSeconds: number;
  /** TRACE_NATS_MAX_BYTES (1GiB); -1: no limit. */
  maxBytes: number;
  /** TRACE_NATS_MAX_MSGS (-1: no limit, the default). */
  maxMsgs: number;
}

export const DEFAULT_TRACE_STREAM_LIMITS: TraceStreamLimits = { maxAgeSeconds: 7 * 86_400, maxBytes: 1024 ** 3, maxMsgs: -1 };

export function traceStreamLimits(env: Record<string, string | undefined>): TraceStreamLimits {
  const d = DEFAULT_TRACE_STREAM_LIMITS;
  const age = env.TRACE_NATS_MAX_AGE?.trim();
  const bytes = env.TRACE_NATS_MAX_BYTES?.trim();
  const msgs = env.TRACE_NATS_MAX_MSGS?.trim();
  if (msgs && !/^(-1|[1-9]\d*)$/.test(msgs)) throw new SettingsError(`TRACE_NATS_MAX_MSGS must be a whole number of messages (-1: no limit), got '${msgs}'`);
  return {
    maxAgeSeconds: age ? durationSeconds('TRACE_NATS_MAX_AGE', age) : d.maxAgeSeconds,
    maxBytes: bytes ? sizeBytes('TRACE_NATS_MAX_BYTES', bytes) : d.maxBytes,
    maxMsgs: msgs ? Number(msgs) : d.maxMsgs,
  };
}

/** How long the memory store keeps what is finished (docs/deployment.md, "Retention"; store/retention.ts). */
export interface RetentionSettings {
  /** RETENTION_TASKS_MAX_AGE: finished A2A tasks (completed, failed, canceled, rejected) last updated longer ago are deleted; null: kept for ever. */
  tasksMaxAgeSeconds: number | null;
  /** RETENTION_CHECKPOINTS_MAX_AGE: the checkpoints of a thread with no checkpoint and no task newer than this, and no unfinished task, are deleted; null: kept for ever. */
  checkpointsMaxAgeSeconds: number | null;
  /** RETENTION_INTERVAL (1h): time between sweeps; the first runs min(interval, 30 s) after the start. */
  intervalSeconds: number;
  /** RETENTION_BATCH_SIZE (500): tasks, or threads, per transaction. */
  batchSize: number;
}

export const DEFAULT_RETENTION_INTERVAL_SECONDS = 3600;
export const DEFAULT_RETENTION_BATCH_SIZE = 500;

/** The RETENTION_* settings: ages and the interval are durations (7d, 72h, 30m, 90s); an unset or 0 age keeps for ever. */
export function retentionSettings(env: Record<string, string | undefined>): RetentionSettings {
  const age = (name: string) => {
    const raw = env[name]?.trim();
    const seconds = raw ? durationSeconds(name, raw) : 0;
    return seconds > 0 ? seconds : null;
  };
  const interval = env.RETENTION_INTERVAL?.trim();
  const intervalSeconds = interval ? durationSeconds('RETENTION_INTERVAL', interval) : DEFAULT_RETENTION_INTERVAL_SECONDS;
  if (intervalSeconds < 1) throw new SettingsError(`RETENTION_INTERVAL must be at least 1s (a duration such as 1h, 30m, 90s), got '${interval}'`);
  const batch = env.RETENTION_BATCH_SIZE?.trim();
  if (batch && (!/^\d+$/.test(batch) || Number(batch) < 1 || Number(batch) > 100_000))
    throw new SettingsError(`RETENTION_BATCH_SIZE must be an integer between 1 and 100000, got '${batch}'`);
  return {
    tasksMaxAgeSeconds: age('RETENTION_TASKS_MAX_AGE'),
    checkpointsMaxAgeSeconds: age('RETENTION_CHECKPOINTS_MAX_AGE'),
    intervalSeconds,
    batchSize: batch ? Number(batch) : DEFAULT_RETENTION_BATCH_SIZE,
  };
}

/** CHECKPOINT_DURABILITY (exit): how often a turn checkpoints (src/shared/thread-state.ts).
 * The studio runs its child with `async`, so every step has a state to show and fork from. */
export function checkpointDurability(env: Record<string, string | undefined>): CheckpointDurability {
  const raw = env.CHECKPOINT_DURABILITY?.trim();
  if (!raw) return 'exit';
  const parsed = CheckpointDurabilitySchema.safeParse(raw.toLowerCase());
  if (!parsed.success) throw new SettingsError(`CHECKPOINT_DURABILITY must be one of exit, async, sync, got '${raw}'`);
  return parsed.data;
}
