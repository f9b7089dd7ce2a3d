// `agent-studio runtime --project DIR [--host 127.0.0.1] [--port N] [--data-dir DIR] [--workers N] [--insecure]`
// `agent-studio runtime keys new NAME` (auth/keys-cli.ts)
// `agent-studio runtime --check-config [DIR]` (check-config.ts)
// `agent-studio runtime migrate [--project DIR] [--data-dir DIR] [--dry-run]` (migrate-cli.ts)
// One process by default; with --workers N the process is a node:cluster primary (cluster/workers.ts)
// and each worker runs this same command. The runtime's modules load only where a runtime
// starts: the primary of a cluster never imports them, nor the project.
import cluster from 'node:cluster';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { parseFlags, parsePort, UsageError } from '../cli-args.ts';
import { MigrationError } from '../common/migrations/runner.ts';
import { formatDiagnosticsLine, formatReadyLine, RUNTIME_ENV, type ProjectDiagnostic } from '../../shared/runtime-contract.ts';
import type { RunningRuntime } from './start.ts';
import { SettingsError } from './settings-error.ts';
import { logLevel, portSetting } from './settings-values.ts';
import { parseWorkers, reportFatal, reportReady, runPrimary, workerInfo, workerReplicaId, type WorkerInfo } from './cluster/workers.ts';

export async function runRuntimeCommand(argv: string[]): Promise<void> {
  if (argv[0] === 'keys') return (await import('./auth/keys-cli.ts')).runKeysCommand(argv.slice(1));
  if (argv[0] === 'migrate') return (await import('./migrate-cli.ts')).runMigrateCommand(argv.slice(1));
  if (argv.includes('--check-config')) return (await import('./check-config.ts')).runCheckConfig(argv);
  const flags = parseFlags(argv, {
    project: { type: 'string' },
    host: { type: 'string' },
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    workers: { type: 'string' },
    insecure: { type: 'boolean' },
  });
  if (typeof flags.project !== 'string' || !flags.project) throw new UsageError('runtime needs --project DIR (the folder holding agent.json)');
  let port: number;
  let primaryLogLevel: string;
  try {
    port = parsePort(flags.port, flags.port === undefined ? portSetting(process.env, 8080) : 8080);
    primaryLogLevel = logLevel(process.env);
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    process.stderr.write(`agent-studio runtime: ${err.message}\n`);
    process.exit(1);
  }
  const host = typeof flags.host === 'string' ? flags.host : '127.0.0.1';
  const workers = parseWorkers(flags.workers);
  if (workers === null) throw new UsageError(`--workers must be an integer >= 1 or 'auto', got '${String(flags.workers)}'`);
  const studioChild = /^(1|true)$/i.test(process.env[RUNTIME_ENV.studioChild] ?? '');
  if (workers > 1 && cluster.isPrimary) {
    runPrimary({ workers, port, logLevel: primaryLogLevel, onStop: studioChild ? exitWithParent : undefined });
    return;
  }
  await serve({
    project: flags.project,
    host,
    port,
    dataDir: typeof flags['data-dir'] === 'string' ? flags['data-dir'] : undefined,
    studioChild,
    worker: workerInfo(),
    insecure: flags.insecure === true,
  });
}

interface ServeOptions {
  project: string;
  host: string;
  port: number;
  dataDir?: string;
  studioChild: boolean;
  /** Set when this process is a worker of `--workers N`. */
  worker: WorkerInfo | null;
  /** --insecure: serve a non-loopback --host without credentials (auth/bind-policy.ts). */
  insecure: boolean;
}

async function serve(opts: ServeOptions): Promise<void> {
  const { worker } = opts;
  const [{ startRuntime, RuntimeStartError }, { ProjectLoadError }, { SettingsError, loadSettings }, { currentRequest }] = await Promise.all([
    import('./start.ts'),
    import('./project/loader.ts'),
    import('./config.ts'),
    import('./observability/request-context.ts'),
  ]);
  try {
    // REPLICA_ID (the environment's or the project .env's; a worker's own, see cluster/workers.ts)
    // goes into the process environment, where the rest of the runtime reads it.
    const settings = loadSettings(path.resolve(opts.project), process.env);
    const replica = worker ? workerReplicaId(settings.env.REPLICA_ID) : settings.env.REPLICA_ID?.trim();
    if (replica) process.env.REPLICA_ID = replica;
    let logger: Logger | undefined;
    if (worker) logger = pino({ name: 'agent-runtime', level: settings.logLevel }, pino.destination(2)).child({ worker: worker.slot });
    const rt = await startRuntime({
      projectDir: opts.project,
      host: opts.host,
      port: worker?.port ?? opts.port,
      dataDir: opts.dataDir,
      logger,
      insecure: opts.insecure,
    });
    survivePerRequestFailures(rt.context.log, currentRequest);
    const name = rt.context.registry.current.project.manifest.name;
    const notes = startupNotes(rt.context.threads.status());
    if (worker) reportReady(name, rt.url, replica!, notes, settings.shutdownGraceMs);
    else process.stdout.write([formatReadyLine(name, rt.url), ...notes].map((l) => `${l}\n`).join(''));
    const log = rt.context.log;
    log.info(
      { url: rt.url, agent: name, replica, store: rt.context.store.backend, shutdown_grace_ms: settings.shutdownGraceMs },
      `runtime started: ${name} serving at ${rt.url}`,
    );
    if (opts.studioChild && !worker) {
      // The studio's child stops at once: the studio ends the runs it was serving itself
      // (spec 3: interrupted, runtime_restarted or studio_shutdown).
      const stop = () => {
        void rt.close().then(() => {
          log.info('runtime stopped');
          process.exit(0);
        });
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      exitWithParent(stop);
    } else {
      stopOnSignals(rt, settings.shutdownGraceMs, worker !== null);
    }
  } catch (err) {
    let text: string | null = null;
    if (err instanceof ProjectLoadError) {
      text = `agent-studio runtime: the project at ${path.resolve(opts.project)} is not valid:\n${err.diagnostics.map((d) => `  ${formatLine(d)}`).join('\n')}\n`;
      // Under the studio, the same diagnostics in the contract's machine-readable line.
      if (opts.studioChild) text += `${formatDiagnosticsLine(err.diagnostics)}\n`;
    } else if (
      err instanceof RuntimeStartError ||
      err instanceof SettingsError ||
      err instanceof MigrationError ||
      (err as Error | undefined)?.name === 'PostgresStoreError'
    ) {
      text = `agent-studio runtime: ${(err as Error).message}\n`;
    } else if (!worker) {
      throw err;
    }
    // A worker's failure is printed once, by the primary, however many workers hit it.
    if (worker) return reportFatal(text ?? `agent-studio runtime: ${(err as Error)?.stack ?? String(err)}\n`, 1);
    process.stderr.write(text!);
    process.exit(1);
  }
}

/** SIGTERM or SIGINT drains the runtime (docs/deployment.md, "Shutdown and health"; D-49):
 * in-flight work gets `graceMs` to finish, what still runs then ends `failed`; exit 0. A
 * second signal stops at once: exit 1, tasks still running are left as a kill would leave
 * them. A worker ignores SIGINT: a terminal's Ctrl+C reaches the whole process group, and
 * the primary forwards it as SIGTERM (cluster/workers.ts). */
function stopOnSignals(rt: RunningRuntime, graceMs: number, worker: boolean): void {
  const log = rt.context.log;
  let first: NodeJS.Signals | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first) {
      log.warn({ signal, first_signal: first }, `${signal} again: stopping at once (exit 1); tasks still running are not ended`);
      process.exit(1);
    }
    first = signal;
    rt.drain(signal, graceMs).then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', worker ? () => undefined : onSignal);
}

/** A studio's runtime child stops when the studio is gone (killed with -9, or gone before it
 * could stop its child): Node reparents an orphan, so a changed parent pid is the signal;
 * and the studio's own pid (AGENT_STUDIO_PID) no longer running, which also covers a studio
 * that died while this child was still starting, before it could note its parent. */
function exitWithParent(stop: () => void): void {
  const parent = process.ppid;
  const studio = Number(process.env[RUNTIME_ENV.studioPid]);
  const gone = () => process.ppid !== parent || (Number.isInteger(studio) && studio > 0 && !running(studio));
  if (gone()) return stop();
  const timer = setInterval(() => {
    if (gone()) {
      clearInterval(timer);
      stop();
    }
  }, 1000);
  timer.unref();
}

/** Whether process `pid` exists (signal 0 checks without sending anything). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A serving runtime never ends because one request (or the project code it ran) threw
 * where nobody awaited it: the failure is logged with its stack and, where known, the request
 * it belonged to (method, path, JSON-RPC method and id, task; observability/request-context.ts),
 * and the process keeps serving the others (docs/security.md). Bad input is refused before it
 * gets this far; this is the net under the cases nobody foresaw. */
function survivePerRequestFailures(log: { error: (obj: object, msg: string) => void }, currentRequest: () => object | undefined): void {
  const request = () => {
    const r = currentRequest();
    return r ? { request: { ...r } } : {};
  };
  process.on('uncaughtException', (err) => log.error({ err, ...request() }, 'uncaught exception; the runtime keeps serving'));
  process.on('unhandledRejection', (err) => log.error({ err, ...request() }, 'unhandled promise rejection; the runtime keeps serving'));
}

/** The lines printed after the ready line (one write with it): what does not work in this
 * runtime and why, e.g. the thread endpoints without AGENT_ID (docs/management-api.md). */
export function startupNotes(threads: { state: 'on' } | { state: 'off'; reason: string; http_status: number; message: string }): string[] {
  if (threads.state === 'on') return [];
  return [`Thread management is off, the /api/v1/memory/threads endpoints answer ${threads.http_status} ${threads.reason}: ${threads.message}`];
}

function formatLine(d: ProjectDiagnostic): string {
  const where = [d.file, d.line, d.column].filter((x) => x !== undefined).join(':');
  return `${where}${d.field ? ` [${d.field}]` : ''}: ${d.message}`;
}
