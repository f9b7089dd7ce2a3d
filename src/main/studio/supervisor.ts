// The runtime supervisor: starts the project's agent runtime as a child process on a free
// loopback port, health-checks it (GET /healthz), restarts it with backoff when it dies or
// stops answering, reloads or restarts it when project files change, and stops it with
// the studio. Why a child process: a crashing or hanging agent must not take the studio
// down (architecture.md).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import type { Logger } from 'pino';
import type { ApplyOutcome, RuntimeHandle } from '../playground/executor/runtime.ts';
import {
  controlHeaders,
  parseDiagnosticsLine,
  parseReadyLine,
  RELOAD_PATH,
  RUNTIME_ENV,
  type ProjectDiagnostic,
} from '../../shared/runtime-contract.ts';
import { repoRoot } from './paths.ts';

export interface RuntimeCommandContext {
  projectDir: string;
  host: string;
  /** 0 on a first start: the runtime picks a free port and names it in its ready line. */
  port: number;
  /** The runtime's own data dir (<studio data dir>/runtime). */
  dataDir: string;
}

export interface RuntimeCommandSpec {
  command: string;
  args: string[];
  /** Environment on top of the studio's (it may override the capture settings). */
  env?: Record<string, string>;
  cwd?: string;
}

/** How to start the runtime; tests substitute a command that fails or hangs. */
export type RuntimeCommand = (ctx: RuntimeCommandContext) => RuntimeCommandSpec;

export const defaultRuntimeCommand: RuntimeCommand = (ctx) => ({
  command: process.execPath,
  args: [
    path.join(repoRoot(), 'bin', 'agent-studio.mjs'),
    'runtime',
    '--project',
    ctx.projectDir,
    '--host',
    ctx.host,
    '--port',
    String(ctx.port),
    '--data-dir',
    ctx.dataDir,
  ],
});

export type SupervisorState = 'idle' | 'starting' | 'ready' | 'backoff' | 'stopping' | 'stopped';

export interface SupervisorStatus {
  state: SupervisorState;
  url: string | null;
  pid: number | null;
  port: number | null;
  generation: number;
  restarts: number;
  consecutive_failures: number;
  last_exit: { code: number | null; signal: string | null; at: string } | null;
  last_error: string | null;
}

export interface SupervisorOptions {
  projectDir: string;
  dataDir: string;
  /** Where the runtime posts trace events (AGENT_STUDIO_CAPTURE_URL). */
  captureUrl: string;
  logger: Logger;
  command?: RuntimeCommand;
  /** Delays between restarts, in ms; the last one repeats. */
  backoffMs?: number[];
  /** A start that is not healthy within this time is killed and retried. */
  startTimeoutMs?: number;
  /** Interval of the health check of a ready runtime. */
  healthIntervalMs?: number;
  /** Failed health checks in a row after which a hung runtime is killed. */
  healthFailures?: number;
}

const HOST = '127.0.0.1';
const DEFAULT_BACKOFF = [250, 500, 1000, 2000, 5000, 10_000];

export class RuntimeSupervisor implements RuntimeHandle {
  private readonly events = new EventEmitter();
  private child: ChildProcess | null = null;
  private state: SupervisorState = 'idle';
  private url: string | null = null;
  private port: number | null = null;
  private gen = 0;
  private exited = new Set<number>();
  private restarts = 0;
  private failures = 0;
  private lastExit: SupervisorStatus['last_exit'] = null;
  private stderrTail: string[] = [];
  private backoffTimer: NodeJS.Timeout | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private deliberate = false;
  /** The control token of the current child (RUNTIME_CONTROL_TOKEN). */
  private token = '';
  /** Diagnostics the current child printed when its project did not load. */
  private childDiagnostics: ProjectDiagnostic[] | null = null;
  /** Those of the last start that failed, until a start succeeds. */
  private failedStartDiagnostics: ProjectDiagnostic[] | null = null;
  private readonly pidFile: string;
  private readonly backoff: number[];

  constructor(private readonly o: SupervisorOptions) {
    this.events.setMaxListeners(0);
    this.pidFile = path.join(o.dataDir, 'runtime.pid');
    this.backoff = o.backoffMs ?? DEFAULT_BACKOFF;
  }

  get generation(): number {
    return this.gen;
  }

  status(): SupervisorStatus {
    return {
      state: this.state,
      url: this.url,
      pid: this.child?.pid ?? null,
      port: this.port,
      generation: this.gen,
      restarts: this.restarts,
      consecutive_failures: this.failures,
      last_exit: this.lastExit,
      last_error: this.unavailableDetail(),
    };
  }

  /** Starts the first runtime process; does not wait for it to be ready. */
  start(): void {
    if (this.state !== 'idle') return;
    this.killStaleChild();
    // A studio that exits without stop() (an uncaught error, process.exit) still takes its
    // runtime down; only a kill -9 leaves it, for killStaleChild on the next start.
    process.on('exit', this.killOnExit);
    void this.spawnChild();
  }

  private readonly killOnExit = () => {
    this.child?.kill('SIGTERM');
  };

  onExit(listener: (generation: number) => void): () => void {
    this.events.on('exit', listener);
    return () => this.events.off('exit', listener);
  }

  async waitReady(timeoutMs: number): Promise<string | null> {
    if (this.state === 'ready' && this.url) return this.url;
    if (this.state === 'stopping' || this.state === 'stopped' || this.state === 'idle') return null;
    // A runtime that keeps failing to start is reported at once rather than after the
    // whole timeout: the user sees runtime_unavailable and the command to investigate.
    if (this.failures >= 2 && this.state === 'backoff') return null;
    return new Promise((resolve) => {
      const done = (url: string | null) => {
        clearTimeout(timer);
        this.events.off('ready', onReady);
        this.events.off('start-failed', onFailed);
        resolve(url);
      };
      const onReady = (url: string) => done(url);
      const onFailed = () => {
        if (this.failures >= 2 || this.state === 'stopping' || this.state === 'stopped') done(null);
      };
      const timer = setTimeout(() => done(null), timeoutMs);
      this.events.on('ready', onReady);
      this.events.on('start-failed', onFailed);
    });
  }

  async waitExit(generation: number, timeoutMs: number): Promise<boolean> {
    if (this.exited.has(generation)) return true;
    return new Promise((resolve) => {
      const onExit = (g: number) => {
        if (g !== generation) return;
        clearTimeout(timer);
        this.events.off('exit', onExit);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.events.off('exit', onExit);
        resolve(this.exited.has(generation));
      }, timeoutMs);
      this.events.on('exit', onExit);
    });
  }

  /** Issue 3 section 3: hot reload when the runtime answers it with success (the
   * registry endpoints exist with INTERNAL_RUNTIME_CONTROL_ENABLED=true, spec 4.2), else
   * a restart of the process. */
  async applyChanges(): Promise<ApplyOutcome> {
    // A child that is starting is let finish (then reloaded, or restarted if it failed):
    // killing it would race its own ready line against the next child's.
    if (this.state === 'starting') await this.nextStart(this.o.startTimeoutMs ?? 60_000);
    if (this.state === 'ready' && this.url) {
      try {
        const res = await fetch(`${this.url}${RELOAD_PATH}`, { method: 'POST', headers: this.controlHeaders(), signal: AbortSignal.timeout(60_000) });
        const body = (await res.json().catch(() => null)) as { success?: boolean; error?: { code?: string; diagnostics?: ProjectDiagnostic[] } } | null;
        if (res.ok && body?.success === true) return { applied: 'reload' };
        // The runtime loaded the changed files and they are broken: it keeps serving the
        // previous ones, and its diagnostics say what to fix.
        if (body?.error?.code === 'RELOAD_FAILED' && Array.isArray(body.error.diagnostics)) return { diagnostics: body.error.diagnostics };
        this.o.logger.info({ status: res.status, body }, 'runtime reload refused; restarting the runtime');
      } catch (err) {
        this.o.logger.info({ err: (err as Error).message }, 'runtime reload failed; restarting the runtime');
      }
    }
    const started = this.nextStart(this.o.startTimeoutMs ?? 60_000);
    await this.restart();
    const diagnostics = await started;
    return diagnostics ? { diagnostics } : { applied: 'restart' };
  }

  startDiagnostics(): ProjectDiagnostic[] | null {
    return this.state === 'ready' ? null : this.failedStartDiagnostics;
  }

  controlHeaders(): Record<string, string> {
    return controlHeaders(this.token);
  }

  /** Resolves when the next child is ready (null) or fails to start (its diagnostics, if it
   * printed any). */
  private nextStart(timeoutMs: number): Promise<ProjectDiagnostic[] | null> {
    return new Promise((resolve) => {
      const done = (diagnostics: ProjectDiagnostic[] | null) => {
        clearTimeout(timer);
        this.events.off('ready', onReady);
        this.events.off('start-failed', done);
        resolve(diagnostics?.length ? diagnostics : null);
      };
      const onReady = () => done(null);
      const timer = setTimeout(() => done(null), timeoutMs);
      this.events.on('ready', onReady);
      this.events.on('start-failed', done);
    });
  }

  /** Stops the current process (if any) and starts a new one now. */
  async restart(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.failures = 0; // the files changed: earlier failures say nothing about the next start
    if (this.backoffTimer) {
      clearTimeout(this.backoffTimer);
      this.backoffTimer = null;
    }
    if (this.child) {
      this.deliberate = true;
      await this.terminate(this.child);
    }
    this.deliberate = false;
    if (!this.halted() && !this.child) void this.spawnChild();
  }

  async stop(): Promise<void> {
    this.state = 'stopping';
    process.off('exit', this.killOnExit);
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.stopHealth();
    if (this.child) await this.terminate(this.child);
    this.state = 'stopped';
    this.url = null;
    fs.rmSync(this.pidFile, { force: true });
  }

  recommendedRunCommand(): string {
    const port = this.port ?? 8080;
    return `npx agent-studio runtime --project ${shellQuote(path.resolve(this.o.projectDir))} --port ${port}`;
  }

  unavailableDetail(): string | null {
    const tail = this.stderrTail
      .map(plainLine)
      .filter((l): l is string => !!l)
      .slice(-3)
      .join(' | ');
    return tail || (this.lastExit ? `the runtime exited (code ${this.lastExit.code ?? 'none'}, signal ${this.lastExit.signal ?? 'none'})` : null);
  }

  // ---------------------------------------------------------------------------------

  /** Stopping or stopped (a method, so TypeScript does not narrow it across awaits). */
  private halted(): boolean {
    return this.state === 'stopping' || this.state === 'stopped';
  }

  private async spawnChild(): Promise<void> {
    if (this.state === 'stopping' || this.state === 'stopped') return;
    this.state = 'starting';
    const generation = ++this.gen;
    const runtimeDataDir = path.join(this.o.dataDir, 'runtime');
    // A first start takes any free port (the child names it in its ready line); restarts
    // ask for the same one, so clients pointed at the runtime keep working.
    const spec = (this.o.command ?? defaultRuntimeCommand)({ projectDir: this.o.projectDir, host: HOST, port: this.port ?? 0, dataDir: runtimeDataDir });
    // A new control token for every process: only this studio can reload its runtime.
    this.token = randomBytes(32).toString('base64url');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      [RUNTIME_ENV.captureUrl]: this.o.captureUrl,
      // The registry reload endpoint (spec 4.2) lets changed files apply without a restart.
      [RUNTIME_ENV.controlEnabled]: 'true',
      [RUNTIME_ENV.controlToken]: this.token,
      [RUNTIME_ENV.studioChild]: '1',
      [RUNTIME_ENV.studioPid]: String(process.pid),
      [RUNTIME_ENV.defaultAgentId]: 'studio',
      // Under Electron, execPath is the Electron binary: make it behave as plain Node.
      ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
      ...spec.env,
    };
    this.stderrTail = [];
    this.childDiagnostics = null;
    let child: ChildProcess;
    try {
      // Its own process group on POSIX: a Ctrl+C in the studio's terminal reaches only the
      // studio, which ends active runs `studio_shutdown` before it stops the runtime (a
      // runtime that died first would make them `runtime_restarted`).
      child = spawn(spec.command, spec.args, {
        env,
        cwd: spec.cwd ?? this.o.projectDir,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
    } catch (err) {
      this.stderrTail.push(`cannot start the runtime: ${(err as Error).message}`);
      this.onChildExit(generation, null, null);
      return;
    }
    this.child = child;
    this.writePidFile(child.pid);
    this.o.logger.info({ pid: child.pid, generation }, 'runtime starting');

    let exited = false;
    const timeout = setTimeout(() => {
      if (exited || this.gen !== generation || this.state !== 'starting') return;
      this.stderrTail.push('the runtime did not become ready in time');
      child.kill('SIGKILL');
    }, this.o.startTimeoutMs ?? 60_000);
    timeout.unref();
    child.once('error', (err) => {
      this.stderrTail.push(`cannot start the runtime: ${err.message}`);
      if (!exited) {
        exited = true;
        clearTimeout(timeout);
        this.onChildExit(generation, null, null);
      }
    });
    child.once('exit', (code, signal) => {
      if (exited) return;
      exited = true;
      clearTimeout(timeout);
      this.onChildExit(generation, code, signal);
    });
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const url = parseReadyLine(line);
      if (url && !exited && this.gen === generation && this.state === 'starting') {
        clearTimeout(timeout);
        this.onReady(child, url);
      } else this.o.logger.info({ runtime: line }, 'runtime output');
    });
    readline.createInterface({ input: child.stderr! }).on('line', (line) => {
      const diagnostics = parseDiagnosticsLine(line);
      if (diagnostics) {
        this.childDiagnostics = diagnostics;
        return;
      }
      this.stderrTail.push(line);
      if (this.stderrTail.length > 30) this.stderrTail.shift();
      // The runtime logs JSON (pino) at debug here; a plain line is a start error for people.
      if (line.trim().startsWith('{')) this.o.logger.debug({ runtime: line }, 'runtime log');
      else if (line.trim()) this.o.logger.warn({ runtime: line }, 'runtime error output');
    });
  }

  /** The child printed its ready line (the contract's): it serves at `url`. */
  private onReady(child: ChildProcess, url: string): void {
    this.state = 'ready';
    this.failedStartDiagnostics = null;
    this.url = url;
    this.port = Number(new URL(url).port);
    this.failures = 0;
    this.o.logger.info({ url, pid: child.pid, generation: this.gen }, 'runtime ready');
    this.events.emit('ready', url);
    this.watchHealth(child, url);
  }

  private onChildExit(generation: number, code: number | null, signal: NodeJS.Signals | null): void {
    this.exited.add(generation);
    if (this.gen !== generation) return;
    const wasReady = this.state === 'ready';
    // A port someone else took meanwhile: the next start picks a free one.
    if (!wasReady && this.stderrTail.some((l) => l.includes('already in use'))) this.port = null;
    this.child = null;
    this.url = null;
    this.stopHealth();
    this.lastExit = { code, signal, at: new Date().toISOString() };
    const expected = this.deliberate || this.halted();
    this.o.logger[expected ? 'info' : 'warn']({ generation, code, signal, expected }, 'runtime exited');
    this.events.emit('exit', generation);
    if (this.state === 'stopping' || this.state === 'stopped') return;
    if (this.deliberate) return; // restart() spawns the next one
    this.failures += 1;
    this.restarts += 1;
    this.state = 'backoff';
    if (!wasReady) {
      this.failedStartDiagnostics = this.childDiagnostics;
      this.events.emit('start-failed', this.childDiagnostics);
    }
    const wait = this.backoff[Math.min(this.failures - 1, this.backoff.length - 1)];
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = null;
      void this.spawnChild();
    }, wait);
    this.backoffTimer.unref();
  }

  /** A ready runtime that stops answering /healthz is killed (the exit restarts it). */
  private watchHealth(child: ChildProcess, url: string): void {
    this.stopHealth();
    let misses = 0;
    const limit = this.o.healthFailures ?? 3;
    this.healthTimer = setInterval(() => {
      void healthy(url, 2000).then((ok) => {
        if (this.child !== child) return;
        misses = ok ? 0 : misses + 1;
        if (misses >= limit) {
          this.o.logger.warn({ pid: child.pid }, 'runtime stopped answering /healthz; killing it');
          this.stderrTail.push('the runtime stopped answering /healthz');
          child.kill('SIGKILL');
        }
      });
    }, this.o.healthIntervalMs ?? 2000);
    this.healthTimer.unref();
  }

  private stopHealth(): void {
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.healthTimer = null;
  }

  private async terminate(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  }

  private writePidFile(pid: number | undefined): void {
    if (!pid) return;
    fs.mkdirSync(this.o.dataDir, { recursive: true });
    fs.writeFileSync(this.pidFile, String(pid));
  }

  /** A studio that was killed (kill -9, crash) leaves its runtime child running. Stop it
   * when the pid file names a live process that is our runtime for this data dir (checked
   * through /proc where it exists, so a reused pid is never hit). */
  private killStaleChild(): void {
    let pid: number;
    try {
      pid = Number(fs.readFileSync(this.pidFile, 'utf8').trim());
    } catch {
      return;
    }
    if (!Number.isInteger(pid) || pid <= 1) return;
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(path.join(this.o.dataDir, 'runtime'))) {
        process.kill(pid, 'SIGKILL');
        this.o.logger.warn({ pid }, 'stopped a runtime left running by an earlier studio');
      }
    } catch {
      // not running, not ours, or no /proc: nothing to do
    }
    fs.rmSync(this.pidFile, { force: true });
  }
}

async function healthy(baseUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(`${baseUrl}healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? `"${s}"` : `"${s.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** The runtime logs JSON lines (pino); keep their message for people. */
function plainLine(line: string): string | null {
  const trimmed = line.trim();
  if (!trimmed) return null;
  if (trimmed.startsWith('{')) {
    try {
      const parsed = JSON.parse(trimmed) as { msg?: string; level?: number };
      // errors and worse (pino 50+): a warning is not why a runtime is unavailable
      return parsed.level !== undefined && parsed.level >= 50 && parsed.msg ? parsed.msg : null;
    } catch {
      return trimmed;
    }
  }
  return trimmed;
}
