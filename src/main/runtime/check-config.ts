// `agent-studio runtime --check-config [DIR]` (docs/deployment.md, "Checking the settings"):
// loads the settings exactly as a start does (DIR/.env, then the process environment, which
// wins; config.ts), prints each effective setting as `NAME=value  # source` with secrets masked,
// and exits 0; a bad setting prints the same one line a start prints and exits 1. It neither
// loads the project, nor opens the store, nor listens.
import path from 'node:path';
import { UsageError } from '../cli-args.ts';
import { loadSettings, readEnvFile, SettingsError } from './config.ts';
import { redactDsn } from './store/postgres/dsn.ts';
import { portSetting } from './settings-values.ts';

/** The runtime's settings and their defaults as docs/deployment.md lists them ('' = unset). */
const RUNTIME_SETTINGS: [string, string][] = [
  ['AGENT_ID', ''],
  ['PORT', '8080'],
  ['LOG_LEVEL', 'info'],
  ['PUBLIC_AGENT_URL', ''],
  ['A2A_CORS_ORIGINS', ''],
  ['A2A_HISTORY_MAX_MESSAGES', '50'],
  ['MAX_HISTORY_TOKENS', ''],
  ['DEFAULT_FANOUT_MAX_CONCURRENCY', '4'],
  ['SHUTDOWN_GRACE_MS', '25000'],
  ['CHECKPOINT_DURABILITY', 'exit'],
  ['REPLICA_ID', ''],
  ['MEMORY_BACKEND', 'sqlite'],
  ['SQLITE_BUSY_TIMEOUT_MS', '5000'],
  ['POSTGRES_DSN', ''],
  ['POSTGRES_SCHEMA', 'public'],
  ['POSTGRES_POOL_MAX', '10'],
  ['TASK_LEASE_MS', '15000'],
  ['RETENTION_TASKS_MAX_AGE', ''],
  ['RETENTION_CHECKPOINTS_MAX_AGE', ''],
  ['RETENTION_INTERVAL', '1h'],
  ['RETENTION_BATCH_SIZE', '500'],
  ['RUNTIME_SETTINGS_REFRESH_MS', '2000'],
  ['OUTBOUND_MAX_CONNECTIONS', '32'],
  ['OUTBOUND_QUEUE_TIMEOUT_MS', '30000'],
  ['PUSH_ALLOW_PRIVATE', 'off'],
  ['PUSH_MAX_ATTEMPTS', '5'],
  ['PUSH_RETRY_BASE_MS', '1000'],
  ['PUSH_RETRY_MAX_MS', '60000'],
  ['PUSH_TIMEOUT_MS', '5000'],
  ['PUSH_POLL_MS', '1000'],
  ['TRACE_SINKS', 'log'],
  ['NATS_URL', 'nats://127.0.0.1:4222'],
  ['TRACE_NATS_PREFIX', 'agent-studio.traces'],
  ['TRACE_NATS_STREAM', 'AGENT_TRACES'],
  ['TRACE_NATS_BUFFER', '10000'],
  ['TRACE_NATS_MAX_AGE', '7d'],
  ['TRACE_NATS_MAX_BYTES', '1GiB'],
  ['TRACE_NATS_MAX_MSGS', '-1'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', ''],
  ['OTEL_EXPORTER_OTLP_PROTOCOL', 'http/protobuf'],
  ['OTEL_TRACES_SAMPLER', 'parentbased_always_on'],
  ['TRACE_OTLP_BUFFER', '10000'],
  ['TRACE_MODEL_CONTENT', 'false'],
  ['RECORD_CALLS', 'off'],
  ['MODEL_PROVIDER', ''],
  ['CLUSTER_CONTROL', 'off'],
  ['CONTROL_NATS_PREFIX', 'agent-studio.control'],
  ['REGISTRY_EVENTS', 'off'],
  ['REGISTRY_NATS_PREFIX', 'agent-studio.registry'],
  ['A2A_API_KEYS', ''],
  ['MANAGEMENT_API_KEYS', ''],
];

/** Other names the runtime reads, shown only when set. */
const OTHER_RUNTIME_NAME =
  /^(A2A_|RETENTION_|NATS_|TRACE_|CLUSTER_|REGISTRY_|POSTGRES_|MANAGEMENT_|OTEL_|MODEL_|OPENAI_|ANTHROPIC_|GEMINI_|GOOGLE_API_KEY$|STAGE_TIMING$|NODE_SPANS$|RANDOM_POOL$|LIGHT_RUN_CONTEXT$)/;

export type SettingSource = 'default' | '.env' | 'environment';

export interface EffectiveSetting {
  name: string;
  value: string;
  source: SettingSource;
}

/** The effective settings of a start in `projectDir`, secrets masked; throws SettingsError as a start would. */
export function effectiveSettings(projectDir: string, processEnv: NodeJS.ProcessEnv = process.env): EffectiveSetting[] {
  const settings = loadSettings(projectDir, processEnv);
  portSetting(processEnv, 8080);
  const file = readEnvFile(settings.envFile);
  const source = (name: string): SettingSource => (processEnv[name] !== undefined ? 'environment' : name in file ? '.env' : 'default');
  const rows: EffectiveSetting[] = [];
  const seen = new Set<string>();
  const add = (name: string, value: string) => {
    seen.add(name);
    rows.push({ name, value: mask(name, value), source: source(name) });
  };
  for (const [name, fallback] of RUNTIME_SETTINGS) {
    // PORT is read from the process environment only (the --port default), as a start does.
    const value = name === 'PORT' ? (processEnv.PORT ?? fallback) : (settings.env[name] ?? fallback);
    if (name === 'MEMORY_BACKEND' && settings.env[name] === undefined) add(name, settings.memoryStore.backend);
    else add(name, value);
  }
  for (const name of Object.keys(settings.env).sort()) {
    if (seen.has(name)) continue;
    if (name in file || OTHER_RUNTIME_NAME.test(name)) add(name, settings.env[name]);
  }
  return rows;
}

/** A value as it may be shown: DSN and URL passwords masked, API key hashes shortened, any
 * value of a *PASSWORD*, *TOKEN*, *SECRET*, *KEY*, *SEED*, *HEADERS* name hidden (its length
 * shown; OTEL_EXPORTER_OTLP_HEADERS carries the collector's credentials). */
export function mask(name: string, value: string): string {
  if (!value) return value;
  if (name === 'POSTGRES_DSN') return redactDsn(value) ?? '';
  if (/_API_KEYS$/.test(name)) {
    // NAME:sha256hex entries (auth/api-keys.ts): the names and the hashes' first 12 digits.
    return value
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean)
      .map((e) => {
        const [keyName, hash] = e.split(':');
        return hash ? `${keyName}:${hash.slice(0, 12)}…` : `${keyName}:***`;
      })
      .join(',');
  }
  if (/PASSWORD|TOKEN|SECRET|KEY|SEED|HEADERS/i.test(name) && !/_FILE$/.test(name)) return `*** (${value.length} chars)`;
  if (/^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i.test(value)) return redactDsn(value) ?? '';
  return value;
}

export function formatSettings(rows: EffectiveSetting[]): string {
  return rows.map((r) => `${r.name}=${r.value}  # ${r.source}`).join('\n') + '\n';
}

export async function runCheckConfig(argv: string[]): Promise<void> {
  const rest = argv.filter((a) => a !== '--check-config');
  let dir: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '--project') dir = rest[++i];
    else if (rest[i].startsWith('--project=')) dir = rest[i].slice('--project='.length);
    else if (/^--(host|port|data-dir|workers)$/.test(rest[i]))
      i++; // a start's flags are allowed and not needed
    else if (!rest[i].startsWith('-') && dir === undefined) dir = rest[i];
    else if (!/^--(host|port|data-dir|workers)=|^--insecure$/.test(rest[i])) throw new UsageError(`--check-config takes a project folder, got '${rest[i]}'`);
  }
  const projectDir = path.resolve(dir ?? '.');
  try {
    process.stdout.write(formatSettings(effectiveSettings(projectDir)));
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    process.stderr.write(`agent-studio runtime: ${err.message}\n`);
    process.exitCode = 1;
  }
}
