// `agent-studio runtime --workers N`: N runtime processes on one machine behind one port, for
// a trial of replicas (docs/deployment.md). node:cluster shares the listening socket: the
// primary accepts connections and hands each to a worker in turn. The primary never loads the
// project (nor the runtime's modules): it forks, waits for every worker to say it is serving,
// prints the one ready line, restarts a worker that dies (with a backoff and a cap), and stops
// them all on SIGINT/SIGTERM: each worker drains (docs/deployment.md, "Shutdown and health"). Each worker is an ordinary runtime (cli.ts) that reports to the
// primary over the cluster's IPC channel instead of printing its ready line or diagnostics.
import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import pino, { type Logger } from 'pino';
import { formatReadyLine } from '../../../shared/runtime-contract.ts';

/** Environment the primary gives each worker. */
export const WORKER_ENV = {
  /** The worker's slot, 1..N; a restarted worker keeps its slot (logs say `worker: k`). */
  slot: 'AGENT_STUDIO_WORKER',
  /** The port a restarted worker listens on when --port 0 was resolved and no worker is left
   * holding the shared socket (otherwise it would get a new random port). */
  port: 'AGENT_STUDIO_WORKER_PORT',
} as const;

/** What a worker tells the primary. */
type WorkerMessage =
  | { kind: 'agent-studio:ready'; agent: string; url: string; replica: string; notes: string[]; graceMs?: number }
  | { kind: 'agent-studio:fatal'; text: string; code: number };

/** A restarted worker waits 0.5 s, 1 s, 2 s ... up to 30 s after each crash in a row. */
const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;
/** A worker that served this long before dying starts its count of crashes in a row again. */
const STABLE_MS = 60_000;
/** A slot whose worker crashed again after this many restarts in a row is given up (logged);
 * with no slot left, the command exits 1. */
const MAX_RESTARTS_IN_A_ROW = 5;
/** Workers still alive this long after SIGTERM beyond their SHUTDOWN_GRACE_MS (which each
 * reports when ready) are killed: their forced end and the closing of their parts. */
const STOP_MARGIN_MS = 5_000;
/** SHUTDOWN_GRACE_MS of a worker that never said (config.ts DEFAULT_SHUTDOWN_GRACE_MS). */
const DEFAULT_GRACE_MS = 25_000;

/** `--workers`: an integer >= 1, or `auto` (os.availableParallelism()). */
export function parseWorkers(value: string | boolean | undefined): number | null {
  if (value === undefined) return 1;
  if (value === 'auto') return os.availableParallelism();
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) < 1) return null;
  return Number(value);
}

// ---- worker side ---------------------------------------------------------------------------

export interface WorkerInfo {
  slot: number;
  /** Set for a restart after --port 0 was resolved (see WORKER_ENV.port). */
  port: number | null;
}

/** This process's worker slot when it runs as a cluster worker, else null. */
export function workerInfo(): WorkerInfo | null {
  if (!cluster.isWorker) return null;
  const port = process.env[WORKER_ENV.port];
  return { slot: Number(process.env[WORKER_ENV.slot] ?? cluster.worker?.id ?? 0), port: port ? Number(port) : null };
}

/** Each worker is a distinct replica: `REPLICA_ID` (the operator's, else the host name) plus
 * the worker's pid. */
export function workerReplicaId(operatorReplicaId: string | undefined): string {
  return `${operatorReplicaId?.trim() || os.hostname()}-${process.pid}`;
}

/** `notes`: the lines the primary prints after the ready line (cli.ts startupNotes);
 * `graceMs`: the worker's SHUTDOWN_GRACE_MS, which the primary waits for on SIGTERM. */
export function reportReady(agent: string, url: string, replica: string, notes: string[], graceMs: number): void {
  process.send?.({ kind: 'agent-studio:ready', agent, url, replica, notes, graceMs } satisfies WorkerMessage);
}

/** A worker that cannot start hands its message to the primary (which prints it once) and exits. */
export function reportFatal(text: string, code: number): void {
  const exit = () => process.exit(code);
  if (!process.send?.({ kind: 'agent-studio:fatal', text, code } satisfies WorkerMessage, exit)) exit();
}

// ---- primary -------------------------------------------------------------------------------

interface Slot {
  k: number;
  worker?: Worker;
  readyAt?: number;
  url?: string;
  /** The message of a worker that could not start. */
  fatal?: string;
  /** Crashes in a row (reset by a worker that served STABLE_MS). */
  crashes: number;
  /** Workers forked for this slot after the first. */
  restarts: number;
  restartTimer?: NodeJS.Timeout;
  /** Killed by the primary to be started again at once (not a crash). */
  recycle?: boolean;
  gaveUp: boolean;
}

export interface PrimaryOptions {
  workers: number;
  /** The --port asked for (0: any free port, the same for every worker). */
  port: number;
  logLevel?: string;
  /** Stop when this process's parent is gone (a studio child). */
  onStop?: (stop: () => void) => void;
}

/** Runs this process as the cluster's primary; it exits the process when it is done. */
export function runPrimary(opts: PrimaryOptions): void {
  const log: Logger = pino({ name: 'agent-runtime', level: opts.logLevel ?? 'info' }, pino.destination(2)).child({ role: 'primary' });
  const slots: Slot[] = Array.from({ length: opts.workers }, (_, i) => ({ k: i + 1, crashes: 0, restarts: -1, gaveUp: false }));
  let phase: 'starting' | 'serving' | 'stopping' = 'starting';
  let exitCode = 0;
  /** The longest SHUTDOWN_GRACE_MS a worker reported. */
  let graceMs = 0;
  let url: string | null = null;
  let resolvedPort: number | null = null;
  /** The port the workers are forked with. node:cluster shares one socket per (host, port):
   * every worker must ask for the same one, or it would get a socket of its own. */
  let portSpec = opts.port;
  const live = () => slots.filter((s) => s.worker !== undefined);

  const fork = (slot: Slot) => {
    slot.restartTimer = undefined;
    slot.restarts += 1;
    const env: Record<string, string> = { [WORKER_ENV.slot]: String(slot.k) };
    if (portSpec !== opts.port) env[WORKER_ENV.port] = String(portSpec);
    const worker = cluster.fork(env);
    slot.worker = worker;
    slot.readyAt = undefined;
    slot.url = undefined;
    slot.fatal = undefined;
    worker.on('message', (m: WorkerMessage) => {
      if (m?.kind === 'agent-studio:fatal') slot.fatal = m.text;
      if (m?.kind === 'agent-studio:ready') onReady(slot, worker, m);
    });
    worker.on('exit', (code, signal) => {
      // Decide once the IPC channel is drained: a fatal message sent before exiting is read.
      if (worker.isConnected()) worker.once('disconnect', () => onExit(slot, worker, code, signal));
      else onExit(slot, worker, code, signal);
    });
  };

  const onReady = (slot: Slot, worker: Worker, m: Extract<WorkerMessage, { kind: 'agent-studio:ready' }>) => {
    if (slot.worker !== worker) return;
    slot.readyAt = Date.now();
    slot.url = m.url;
    graceMs = Math.max(graceMs, m.graceMs ?? DEFAULT_GRACE_MS);
    log.info({ worker: slot.k, worker_pid: worker.process.pid, replica: m.replica, url: m.url, restarts: slot.restarts }, `worker ${slot.k} is serving`);
    if (phase === 'starting') {
      if (slots.some((s) => s.readyAt === undefined)) return;
      const urls = new Set(slots.map((s) => s.url));
      url = m.url;
      resolvedPort = Number(new URL(m.url).port);
      phase = 'serving';
      if (urls.size > 1) log.warn({ urls: [...urls] }, 'the workers listen on different URLs');
      process.stdout.write([formatReadyLine(m.agent, m.url), ...(m.notes ?? [])].map((l) => `${l}\n`).join(''));
      log.info({ workers: opts.workers, url }, `${opts.workers} workers serving at ${url}`);
    } else if (m.url !== url) {
      log.warn({ worker: slot.k, url: m.url, expected: url }, `worker ${slot.k} listens at ${m.url}, not at ${url}`);
    }
  };

  const onExit = (slot: Slot, worker: Worker, code: number | null, signal: string | null) => {
    if (slot.worker !== worker) return;
    slot.worker = undefined;
    const pid = worker.process.pid;
    if (slot.recycle && phase === 'serving') {
      slot.recycle = false;
      log.info({ worker: slot.k, worker_pid: pid, port: portSpec }, `worker ${slot.k} starts again on port ${portSpec}`);
      return fork(slot);
    }
    if (phase === 'stopping') {
      if (code !== 0) exitCode = 1;
      log[code === 0 ? 'info' : 'warn']({ worker: slot.k, worker_pid: pid, code, signal }, `worker ${slot.k} stopped`);
      if (live().length > 0) return;
      log.info({ code: exitCode }, 'all workers stopped');
      process.exit(exitCode);
    }
    if (phase === 'starting') {
      // A project that does not load, a busy port, a bad setting: every worker would fail the
      // same way, so the first failure is printed once and the whole command exits.
      process.stderr.write(slot.fatal ?? `agent-studio runtime: worker ${slot.k} (pid ${pid}) exited with ${signal ?? `code ${code}`} before it was serving\n`);
      return stop(typeof code === 'number' && code !== 0 ? code : 1);
    }
    if (portSpec === 0 && !slots.some((s) => s.worker && s.readyAt !== undefined)) {
      // --port 0: the workers shared the socket of their first listen(0), and the last worker
      // holding it is gone, so it is closed. From now on every worker asks for the port it had;
      // one already starting with port 0 would open another socket: it starts again too.
      portSpec = resolvedPort!;
      for (const s of live()) {
        s.recycle = true;
        s.worker!.process.kill('SIGKILL');
      }
    }
    const served = slot.readyAt === undefined ? 0 : Date.now() - slot.readyAt;
    if (served >= STABLE_MS) slot.crashes = 0;
    slot.crashes += 1;
    const reason = slot.fatal?.trim();
    if (slot.crashes > MAX_RESTARTS_IN_A_ROW) {
      slot.gaveUp = true;
      log.error(
        { worker: slot.k, worker_pid: pid, code, signal, crashes: slot.crashes, reason },
        `worker ${slot.k} crashed ${slot.crashes} times in a row; not restarting it`,
      );
      if (slots.every((s) => s.gaveUp)) {
        log.error('no worker left; stopping');
        stop(1);
      }
      return;
    }
    const delay = Math.min(RESTART_BASE_MS * 2 ** (slot.crashes - 1), RESTART_MAX_MS);
    log.error(
      { worker: slot.k, worker_pid: pid, code, signal, restart_in_ms: delay, crashes: slot.crashes, reason },
      `worker ${slot.k} exited unexpectedly; restarting it in ${delay} ms`,
    );
    slot.restartTimer = setTimeout(() => fork(slot), delay);
  };

  const stop = (code: number, signal?: NodeJS.Signals) => {
    if (phase === 'stopping') return;
    phase = 'stopping';
    exitCode = code;
    for (const s of slots) clearTimeout(s.restartTimer);
    const running = live();
    if (running.length === 0) process.exit(exitCode);
    const waitMs = (graceMs || DEFAULT_GRACE_MS) + STOP_MARGIN_MS;
    if (code === 0) {
      log.info(
        { signal, workers: running.length, wait_ms: waitMs },
        `${signal ?? 'stop'}: stopping the workers; each drains its in-flight work (up to ${graceMs || DEFAULT_GRACE_MS} ms)`,
      );
    }
    // Each worker drains on SIGTERM (cli.ts), closes its runtime and exits.
    for (const s of running) s.worker!.process.kill('SIGTERM');
    setTimeout(() => {
      for (const s of live()) {
        log.warn({ worker: s.k, worker_pid: s.worker!.process.pid }, `worker ${s.k} did not stop within ${waitMs} ms; killing it`);
        s.worker!.process.kill('SIGKILL');
      }
    }, waitMs).unref();
  };

  // The first SIGINT/SIGTERM drains the workers; a second one stops them at once (exit 1).
  const onSignal = (signal: NodeJS.Signals) => {
    if (phase !== 'stopping') return stop(0, signal);
    log.warn({ signal }, `${signal} again: stopping the workers at once`);
    exitCode = 1;
    for (const s of live()) s.worker!.process.kill('SIGTERM');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  opts.onStop?.(() => stop(0));
  for (const slot of slots) fork(slot);
}
