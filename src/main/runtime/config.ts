// Runtime settings: the process environment, then the project's environment file
// (DIR/.env); the process environment wins (docs/deployment.md). Names from the spec.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { RUNTIME_ENV } from '../../shared/runtime-contract.ts';
import { natsSettings, signingSecret, type NatsSettings } from './cluster/nats-settings.ts';
import { SettingsError } from './settings-error.ts';
import { authSettings, type AuthSettings } from './auth/settings.ts';
import {
  checkpointDurability,
  logLevel,
  postgresDsn,
  retentionSettings,
  traceStreamLimits,
  type LogLevel,
  type RetentionSettings,
  type TraceStreamLimits,
} from './settings-values.ts';
import type { CheckpointDurability } from '../../shared/thread-state.ts';
import { otlpSettings, traceModelContent, type OtlpSettings } from './observability/otlp-settings.ts';
import { modelProviderSettings, type ModelProviderSettings } from './model-settings.ts';
import { pushSettings, type PushSettings } from './push/settings.ts';

export interface RuntimeSettings {
  /** Owner of every thread this runtime writes (spec 1.5). Empty when unset. */
  agentId: string;
  publicAgentUrl: string | null;
  /** Where PUBLIC_AGENT_URL was set: the process environment pins the card URL (the management
   * API refuses to change it); the project's .env is a default (docs/management-api.md). */
  publicAgentUrlFrom: 'environment' | 'env_file' | null;
  /** RUNTIME_SETTINGS_REFRESH_MS (2000): how often runtime settings are read from the store. */
  settingsRefreshMs: number;
  historyMaxMessages: number;
  maxHistoryTokens: number | null;
  stageTiming: boolean;
  fanoutMaxConcurrency: number;
  internalRuntimeControl: boolean;
  captureUrl: string | null;
  /** When set, the registry endpoints require `Authorization: Bearer <token>` (docs/security.md). */
  controlToken: string | null;
  /** Started by the studio: also print machine-readable diagnostics lines. */
  studioChild: boolean;
  /** Origins whose pages may call POST / from a browser (A2A_CORS_ORIGINS, comma-separated). */
  corsOrigins: string[];
  /** Node spans in the trace (docs/runtime-traces.md); NODE_SPANS=off leaves them out. */
  nodeSpans: boolean;
  /** crypto.getRandomValues served from a pool (random-pool.ts, D-38); RANDOM_POOL=off leaves it as Node ships it. */
  randomPool: boolean;
  /** LangChain's run context without a disabled LangSmith RunTree per runnable call (run-context.ts, D-40); LIGHT_RUN_CONTEXT=off leaves LangChain's. */
  lightRunContext: boolean;
  /** The memory store (docs/deployment.md): SQLite in the data dir, or a shared PostgreSQL. */
  memoryStore: MemoryStoreSettings;
  /** How long finished tasks and idle threads' checkpoints are kept (RETENTION_*; store/retention.ts). */
  retention: RetentionSettings;
  /** Trace sinks beyond the structured log (TRACE_SINKS=log,nats; docs/runtime-traces.md). */
  traceNats: { servers: string; prefix: string; stream: string; bufferMax: number; limits: TraceStreamLimits } | null;
  /** The OpenTelemetry sink (TRACE_SINKS=otlp; observability/otlp-settings.ts). */
  traceOtlp: OtlpSettings | null;
  /** Model-call events carry prompts and completions (TRACE_MODEL_CONTENT; off). */
  traceModelContent: boolean;
  /** Share of runs (0 to 1) whose calls are recorded when no studio captures them
   * (RECORD_CALLS: off, on or a ratio; default off). A studio run always records (D-93). */
  recordCalls: number;
  /** Which model provider the project's createChatModel uses (MODEL_PROVIDER; model-settings.ts). */
  modelProvider: ModelProviderSettings;
  /** LOG_LEVEL (info), one of pino's levels (settings-values.ts). */
  logLevel: LogLevel;
  /** The structured-log sink (on unless TRACE_SINKS leaves `log` out). */
  traceLog: boolean;
  /** The outbound connection pool (spec 8): OUTBOUND_MAX_CONNECTIONS (32), OUTBOUND_QUEUE_TIMEOUT_MS (30000). */
  outbound: { maxConnections: number; queueTimeoutMs: number };
  /** Cluster-wide control through NATS (CLUSTER_CONTROL=nats; CONTROL_NATS_PREFIX), signed with CLUSTER_CONTROL_SECRET (D-48). */
  clusterControl: { servers: string; prefix: string; secret: Buffer } | null;
  /** Registry change events from NATS (REGISTRY_EVENTS=nats; REGISTRY_NATS_PREFIX); signed ones only when REGISTRY_EVENTS_SECRET is set. */
  registryEvents: { servers: string; prefix: string; secret: Buffer | null } | null;
  /** How every feature above connects to NATS (cluster/nats-settings.ts); null when none is on. */
  nats: NatsSettings | null;
  /** This process among the agent's replicas (REPLICA_ID; default host-pid-random). */
  replicaId: string | null;
  /** SHUTDOWN_GRACE_MS (25000; 0 ends in-flight work at once): how long SIGTERM lets in-flight turns finish (docs/deployment.md, "Shutdown and health"). */
  shutdownGraceMs: number;
  /** CHECKPOINT_DURABILITY (exit; the studio's child: async): how often a turn checkpoints (settings-values.ts). */
  checkpointDurability: CheckpointDurability;
  /** Who may call POST / and the management API (auth/settings.ts, docs/security.md). */
  auth: AuthSettings;
  /** Push notifications: PUSH_ALLOW_PRIVATE, PUSH_MAX_ATTEMPTS, PUSH_RETRY_*, PUSH_TIMEOUT_MS, PUSH_POLL_MS (push/settings.ts). */
  push: PushSettings;
  /** The merged environment (file then process), as the project's code sees it. */
  env: Record<string, string>;
  envFile: string;
}

/** leaseMs: TASK_LEASE_MS, the task lease of either store (docs/deployment.md, "Replicas"). */
export type MemoryStoreSettings =
  { backend: 'sqlite'; leaseMs: number; busyTimeoutMs: number } | { backend: 'postgres'; dsn: string; schema: string; poolMax: number; leaseMs: number };

export { SettingsError };

/** RECORD_CALLS: `off` (default), `on`, or the share of runs to record, 0 to 1 (D-93). */
export function recordCalls(raw: string | undefined): number {
  const v = (raw ?? '').trim().toLowerCase();
  if (v === '' || /^(0|false|no|off)$/.test(v)) return 0;
  if (/^(1|true|yes|on)$/.test(v)) return 1;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new SettingsError(`RECORD_CALLS must be off, on or a share of runs from 0 to 1 (0.1 records one run in ten), got '${raw}'`);
  return n;
}

export const DEFAULT_FANOUT_MAX_CONCURRENCY = 4;
export const DEFAULT_HISTORY_MAX_MESSAGES = 50;

export function readEnvFile(file: string): Record<string, string> {
  try {
    return parseDotenv(fs.readFileSync(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw err;
  }
}

function positiveInt(env: Record<string, string>, name: string, fallback: number | null): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) {
    throw new SettingsError(`${name} must be a positive integer, got '${raw}'`);
  }
  return n;
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 25_000;

/** SHUTDOWN_GRACE_MS: an integer >= 0 (ms). The default fits Kubernetes' 30 s terminationGracePeriodSeconds. */
function shutdownGraceMs(env: Record<string, string>): number {
  const raw = env.SHUTDOWN_GRACE_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_SHUTDOWN_GRACE_MS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new SettingsError(`SHUTDOWN_GRACE_MS must be an integer >= 0 (milliseconds), got '${raw}'`);
  return n;
}

function flag(env: Record<string, string>, name: string): boolean {
  return /^(1|true|yes|on)$/i.test(env[name] ?? '');
}

/** `https://a.example, http://localhost:3000` -> normalised origins; a bad entry is a start error. */
function corsOrigins(raw: string | undefined): string[] {
  if (!raw?.trim()) return [];
  return raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        const u = new URL(entry);
        if ((u.protocol !== 'http:' && u.protocol !== 'https:') || u.origin !== entry.replace(/\/$/, '').toLowerCase()) throw new Error('not an origin');
        return u.origin;
      } catch {
        throw new SettingsError(`A2A_CORS_ORIGINS must list origins such as https://app.example.com, got '${entry}'`);
      }
    });
}

export function loadSettings(projectDir: string, processEnv: NodeJS.ProcessEnv = process.env): RuntimeSettings {
  const envFile = path.join(projectDir, '.env');
  const env: Record<string, string> = { ...readEnvFile(envFile) };
  for (const [k, v] of Object.entries(processEnv)) if (v !== undefined) env[k] = v;

  const publicUrl = env.PUBLIC_AGENT_URL?.trim();
  if (publicUrl) {
    try {
      const u = new URL(publicUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new SettingsError(`PUBLIC_AGENT_URL must be an absolute http(s) URL, got '${publicUrl}'`);
    }
  }
  const traceNats = traceNatsSettings(env);
  const clusterControl = natsFeature(env, 'CLUSTER_CONTROL', 'CONTROL_NATS_PREFIX', 'agent-studio.control');
  const registryEvents = registryEventSettings(env);
  return {
    agentId: (env.AGENT_ID || env[RUNTIME_ENV.defaultAgentId] || '').trim(),
    publicAgentUrl: publicUrl || null,
    publicAgentUrlFrom: !publicUrl ? null : processEnv.PUBLIC_AGENT_URL?.trim() ? 'environment' : 'env_file',
    settingsRefreshMs: positiveInt(env, 'RUNTIME_SETTINGS_REFRESH_MS', 2_000)!,
    historyMaxMessages: positiveInt(env, 'A2A_HISTORY_MAX_MESSAGES', DEFAULT_HISTORY_MAX_MESSAGES)!,
    maxHistoryTokens: positiveInt(env, 'MAX_HISTORY_TOKENS', null),
    stageTiming: flag(env, 'STAGE_TIMING'),
    fanoutMaxConcurrency: positiveInt(env, 'DEFAULT_FANOUT_MAX_CONCURRENCY', DEFAULT_FANOUT_MAX_CONCURRENCY)!,
    internalRuntimeControl: flag(env, RUNTIME_ENV.controlEnabled),
    captureUrl: env[RUNTIME_ENV.captureUrl]?.trim() || null,
    controlToken: env[RUNTIME_ENV.controlToken]?.trim() || null,
    studioChild: flag(env, RUNTIME_ENV.studioChild),
    corsOrigins: corsOrigins(env.A2A_CORS_ORIGINS),
    nodeSpans: !/^(0|false|no|off)$/i.test(env.NODE_SPANS ?? ''),
    randomPool: !/^(0|false|no|off)$/i.test(env.RANDOM_POOL ?? ''),
    lightRunContext: !/^(0|false|no|off)$/i.test(env.LIGHT_RUN_CONTEXT ?? ''),
    memoryStore: memoryStoreSettings(env),
    retention: retentionSettings(env),
    traceNats,
    traceOtlp: traceSinkNames(env).includes('otlp') ? otlpSettings(env, (env.AGENT_ID || '').trim()) : null,
    traceModelContent: traceModelContent(env),
    recordCalls: recordCalls(env.RECORD_CALLS),
    modelProvider: modelProviderSettings(env),
    logLevel: logLevel(env),
    traceLog: traceSinkNames(env).includes('log'),
    registryEvents,
    outbound: { maxConnections: positiveInt(env, 'OUTBOUND_MAX_CONNECTIONS', 32)!, queueTimeoutMs: positiveInt(env, 'OUTBOUND_QUEUE_TIMEOUT_MS', 30_000)! },
    clusterControl: clusterControl && { ...clusterControl, secret: signingSecret(env, 'CLUSTER_CONTROL_SECRET', 'CLUSTER_CONTROL=nats')! },
    nats: traceNats || clusterControl || registryEvents ? natsSettings(env) : null,
    replicaId: env.REPLICA_ID?.trim() || null,
    shutdownGraceMs: shutdownGraceMs(env),
    checkpointDurability: checkpointDurability(env),
    auth: authSettings(env, projectDir),
    push: pushSettings(env),
    env,
    envFile,
  };
}

/** MEMORY_BACKEND (sqlite | postgres; postgres when only POSTGRES_DSN is set), SQLITE_BUSY_TIMEOUT_MS (5000), POSTGRES_DSN,
 * POSTGRES_SCHEMA (public), POSTGRES_POOL_MAX (10), TASK_LEASE_MS (15000). */
function memoryStoreSettings(env: Record<string, string>): MemoryStoreSettings {
  const dsn = env.POSTGRES_DSN?.trim() && postgresDsn(env.POSTGRES_DSN.trim());
  const backend = (env.MEMORY_BACKEND?.trim().toLowerCase() || (dsn ? 'postgres' : 'sqlite')) as string;
  const leaseMs = positiveInt(env, 'TASK_LEASE_MS', 15_000)!;
  if (backend === 'sqlite') return { backend, leaseMs, busyTimeoutMs: positiveInt(env, 'SQLITE_BUSY_TIMEOUT_MS', 5_000)! };
  if (backend !== 'postgres') throw new SettingsError(`MEMORY_BACKEND must be sqlite or postgres, got '${env.MEMORY_BACKEND}'`);
  if (!dsn) throw new SettingsError('MEMORY_BACKEND=postgres needs POSTGRES_DSN (postgresql://user:password@host:5432/database)');
  const schema = env.POSTGRES_SCHEMA?.trim() || 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema))
    throw new SettingsError(`POSTGRES_SCHEMA must be a plain identifier (letters, digits, _), got '${schema}'`);
  return {
    backend,
    dsn,
    schema,
    poolMax: positiveInt(env, 'POSTGRES_POOL_MAX', 10)!,
    leaseMs,
  };
}

/** TRACE_SINKS (comma-separated: log, nats, otlp; default log), NATS_URL (nats://127.0.0.1:4222),
 * TRACE_NATS_PREFIX (agent-studio.traces), TRACE_NATS_STREAM (AGENT_TRACES), TRACE_NATS_BUFFER (10000),
 * TRACE_NATS_MAX_AGE / _MAX_BYTES / _MAX_MSGS (settings-values.ts). */
function traceSinkNames(env: Record<string, string>): string[] {
  const sinks = (env.TRACE_SINKS?.trim() || 'log')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = sinks.filter((s) => s !== 'log' && s !== 'nats' && s !== 'otlp');
  if (unknown.length) throw new SettingsError(`TRACE_SINKS lists unknown sink(s) ${unknown.join(', ')}: use log, nats and/or otlp`);
  return sinks;
}

function traceNatsSettings(env: Record<string, string>): RuntimeSettings['traceNats'] {
  if (!traceSinkNames(env).includes('nats')) return null;
  return {
    servers: natsUrl(env),
    prefix: subjectPrefix(env, 'TRACE_NATS_PREFIX', 'agent-studio.traces'),
    stream: env.TRACE_NATS_STREAM?.trim() || 'AGENT_TRACES',
    bufferMax: positiveInt(env, 'TRACE_NATS_BUFFER', 10_000)!,
    limits: traceStreamLimits(env),
  };
}

/** REGISTRY_EVENTS (off | nats), REGISTRY_NATS_PREFIX (agent-studio.registry), NATS_URL, REGISTRY_EVENTS_SECRET (optional). */
function registryEventSettings(env: Record<string, string>): RuntimeSettings['registryEvents'] {
  const feature = natsFeature(env, 'REGISTRY_EVENTS', 'REGISTRY_NATS_PREFIX', 'agent-studio.registry');
  return feature && { ...feature, secret: signingSecret(env, 'REGISTRY_EVENTS_SECRET', null) };
}

/** A feature on NATS: `<switch>` off | nats, its subject prefix, NATS_URL. */
function natsFeature(env: Record<string, string>, name: string, prefixName: string, defaultPrefix: string): { servers: string; prefix: string } | null {
  const mode = env[name]?.trim().toLowerCase() || 'off';
  if (mode === 'off' || mode === 'false' || mode === '0') return null;
  if (mode !== 'nats') throw new SettingsError(`${name} must be off or nats, got '${env[name]}'`);
  return { servers: natsUrl(env), prefix: subjectPrefix(env, prefixName, defaultPrefix) };
}

const natsUrl = (env: Record<string, string>) => env.NATS_URL?.trim() || 'nats://127.0.0.1:4222';

/** A NATS subject prefix setting: dot-separated tokens of letters, digits, _ and -. */
function subjectPrefix(env: Record<string, string>, name: string, fallback: string): string {
  const prefix = env[name]?.trim() || fallback;
  if (!/^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/.test(prefix))
    throw new SettingsError(`${name} must be dot-separated tokens of letters, digits, _ and -, got '${prefix}'`);
  return prefix;
}
