// The runtime supervisor: starts the project's agent runtime as a child process on a free
// loopback port, health-checks it (GET /livez), restarts it with backoff when it dies or
// stops answering, reloads or restarts it when project files change, and stops it with
// the studio. Why a child process: a crashing or hanging agent must not take the studio
// down (docs/architecture.md). Its parts: the lifecycle table (lifecycle.ts), the process
// (process.ts), the health monitor (health.ts) and the RuntimeClient (client.ts).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Logger } from 'pino';
import type { ApplyOutcome, RuntimeHandle } from '../../playground/executor/runtime.ts';
import { controlHeaders, type ProjectDiagnostic } from '../../../shared/runtime-contract.ts';
import { RuntimeChild, type ChildListener } from './process.ts';
import { RuntimeClient } from './client.ts';
import { childEnv, defaultRuntimeCommand, manualRunCommand, type RuntimeCommand } from './command.ts';
import { HealthMonitor } from './health.ts';
import { ChildLifecycle, type ChildState, type ChildEvent } from './lifecycle.ts';
import type { RuntimeStatus } from '../../../shared/studio-api.ts';
import { ChildOutputTail } from './output.ts';
import { RuntimePidFile } from './pid-file.ts';
import { ChildWaiters } from './waiters.ts';

export type SupervisorState = ChildState;

/** What GET /runtime answers (src/shared/studio-api.ts). */
export type SupervisorStatus = RuntimeStatus;

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
  private readonly waiters = new ChildWaiters();
  private readonly lifecycle = new ChildLifecycle();
  private readonly client = new RuntimeClient(this);
  private readonly health: HealthMonitor;
  private readonly pidFile: RuntimePidFile;
  private readonly tail = new ChildOutputTail();
  private readonly backoff: number[];
  private readonly startTimeoutMs: number;
  private child: RuntimeChild | null = null;
  private url: string | null = null;
  private port: number | null = null;
  private gen = 0;
  private restarts = 0;
  private failures = 0;
  private lastExit: SupervisorStatus['last_exit'] = null;
  private backoffTimer: NodeJS.Timeout | null = null;
  private stopped: Promise<void> | null = null;
  /** The control token of the current child (RUNTIME_CONTROL_TOKEN). */
  private token = '';
  /** Diagnostics the current child printed when its project did not load. */
  private childDiagnostics: ProjectDiagnostic[] | null = null;
  /** Those of the last start that failed, until a start succeeds. */
  private failedStartDiagnostics: ProjectDiagnostic[] | null = null;

  constructor(private readonly o: SupervisorOptions) {
    this.pidFile = new RuntimePidFile(o.dataDir);
    this.backoff = o.backoffMs ?? DEFAULT_BACKOFF;
    this.startTimeoutMs = o.startTimeoutMs ?? 60_000;
    this.health = new HealthMonitor({
      check: (url, ms) => this.client.healthy(url, ms),
      intervalMs: o.healthIntervalMs ?? 2000,
      failures: o.healthFailures ?? 3,
      timeoutMs: 2000,
    });
  }

  get generation(): number {
    return this.gen;
  }

  private get state(): ChildState {
    return this.lifecycle.state;
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
    this.pidFile.killStale(this.o.logger);
    // A studio that exits without stop() (an uncaught error, process.exit) still takes its
    // runtime down; only a kill -9 leaves it, for killStale on the next start.
    process.on('exit', this.killOnExit);
    this.spawnChild();
  }

  private readonly killOnExit = () => {
    this.child?.kill('SIGTERM');
  };

  onExit(listener: (generation: number) => void): () => void {
    return this.waiters.onExit(listener);
  }

  async waitReady(timeoutMs: number): Promise<string | null> {
    if (this.state === 'ready' && this.url) return this.url;
    if (this.lifecycle.halted || this.state === 'idle') return null;
    // A runtime that keeps failing to start is reported at once rather than after the
    // whole timeout: the user sees runtime_unavailable and the command to investigate.
    if (this.failures >= 2 && this.state === 'backoff') return null;
    return this.waiters.nextReady(timeoutMs, () => this.failures >= 2 || this.lifecycle.halted);
  }

  waitExit(generation: number, timeoutMs: number): Promise<boolean> {
    return this.waiters.exitOf(generation, timeoutMs);
  }

  /** A hot reload when the runtime answers it with success (the registry endpoints exist
   * with INTERNAL_RUNTIME_CONTROL_ENABLED=true, spec 4.2), else a restart of the process. */
  async applyChanges(): Promise<ApplyOutcome> {
    // A child that is starting is let finish (then reloaded, or restarted if it failed):
    // killing it would race its own ready line against the next child's.
    if (this.state === 'starting') await this.nextStart();
    if (this.state === 'ready' && this.url) {
      const reload = await this.client.reload(this.url);
      if (reload.kind === 'reloaded') return { applied: 'reload' };
      // The runtime loaded the changed files and they are broken: it keeps serving the
      // previous ones, and its diagnostics say what to fix.
      if (reload.kind === 'failed') return { diagnostics: reload.failure.diagnostics };
      if (reload.error !== null) this.o.logger.info({ err: reload.error }, 'runtime reload failed; restarting the runtime');
      else this.o.logger.info({ status: reload.status, body: reload.body }, 'runtime reload refused; restarting the runtime');
    }
    const started = this.nextStart();
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

  private nextStart(): Promise<ProjectDiagnostic[] | null> {
    return this.waiters.nextStart(this.startTimeoutMs);
  }

  /** Stops the current process (if any) and starts a new one now. */
  async restart(): Promise<void> {
    if (!this.lifecycle.can('restart')) return;
    this.apply('restart');
    this.failures = 0; // the files changed: earlier failures say nothing about the next start
    if (this.backoffTimer) clearTimeout(this.backoffTimer);
    this.backoffTimer = null;
    if (this.child) await this.child.terminate();
    if (this.state === 'restarting' && !this.child) this.spawnChild();
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.apply('stop');
      process.off('exit', this.killOnExit);
      if (this.backoffTimer) clearTimeout(this.backoffTimer);
      this.health.stop();
      if (this.child) await this.child.terminate();
      this.apply('stopped');
      this.url = null;
      this.pidFile.remove();
    })();
    return this.stopped;
  }

  recommendedRunCommand(): string {
    return manualRunCommand(this.o.projectDir, this.port ?? 8080);
  }

  unavailableDetail(): string | null {
    const tail = this.tail.summary();
    return tail || (this.lastExit ? `the runtime exited (code ${this.lastExit.code ?? 'none'}, signal ${this.lastExit.signal ?? 'none'})` : null);
  }

  // ---------------------------------------------------------------------------------

  private apply(event: ChildEvent): void {
    this.lifecycle.apply(event);
  }

  private spawnChild(): void {
    if (!this.lifecycle.can('spawn')) return;
    this.apply('spawn');
    const generation = ++this.gen;
    // A first start takes any free port (the child names it in its ready line); restarts
    // ask for the same one, so clients pointed at the runtime keep working.
    const runtimeDataDir = path.join(this.o.dataDir, 'runtime');
    const spec = (this.o.command ?? defaultRuntimeCommand)({ projectDir: this.o.projectDir, host: HOST, port: this.port ?? 0, dataDir: runtimeDataDir });
    // A new control token for every process: only this studio can reload its runtime.
    this.token = randomBytes(32).toString('base64url');
    this.tail.clear();
    this.childDiagnostics = null;
    let child: RuntimeChild;
    try {
      const launch = {
        command: spec.command,
        args: spec.args,
        env: childEnv(this.o.captureUrl, this.token, spec),
        cwd: spec.cwd ?? this.o.projectDir,
        startTimeoutMs: this.startTimeoutMs,
      };
      child = RuntimeChild.launch(
        launch,
        this.listener(generation, () => child),
      );
    } catch (err) {
      this.tail.push(`cannot start the runtime: ${(err as Error).message}`);
      this.onChildExit(generation, null, null);
      return;
    }
    this.child = child;
    this.pidFile.write(child.pid);
    this.o.logger.info({ pid: child.pid, generation }, 'runtime starting');
  }

  /** What the supervisor does with what the child of `generation` reports. */
  private listener(generation: number, child: () => RuntimeChild): ChildListener {
    const log = this.o.logger;
    const current = () => this.gen === generation;
    return {
      ready: (url, line) => {
        if (current() && this.state === 'starting') this.onReady(child(), url);
        else log.info({ runtime: line }, 'runtime output');
      },
      diagnostics: (d) => {
        this.childDiagnostics = d;
      },
      stdout: (line) => log.info({ runtime: line }, 'runtime output'),
      stderr: (line) => {
        this.tail.push(line);
        // The runtime logs JSON (pino) at debug here; a plain line is a start error for people.
        if (line.trim().startsWith('{')) log.debug({ runtime: line }, 'runtime log');
        else if (line.trim()) log.warn({ runtime: line }, 'runtime error output');
      },
      startTimedOut: () => {
        if (!current() || this.state !== 'starting') return;
        this.tail.push('the runtime did not become ready in time');
        child().kill('SIGKILL');
      },
      exit: (code, signal, error) => {
        if (error) this.tail.push(`cannot start the runtime: ${error.message}`);
        this.onChildExit(generation, code, signal);
      },
    };
  }

  /** The child printed its ready line (the contract's): it serves at `url`. */
  private onReady(child: RuntimeChild, url: string): void {
    this.apply('ready');
    this.failedStartDiagnostics = null;
    this.url = url;
    this.port = Number(new URL(url).port);
    this.failures = 0;
    this.o.logger.info({ url, pid: child.pid, generation: this.gen }, 'runtime ready');
    this.waiters.ready(url);
    // A ready runtime that stops answering /livez is killed (the exit restarts it).
    this.health.watch(
      url,
      () => this.child === child,
      () => {
        this.o.logger.warn({ pid: child.pid }, 'runtime stopped answering /livez; killing it');
        this.tail.push('the runtime stopped answering /livez');
        child.kill('SIGKILL');
      },
    );
  }

  private onChildExit(generation: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.gen !== generation) return this.waiters.exit(generation, false);
    const wasReady = this.state === 'ready';
    // A port someone else took meanwhile: the next start picks a free one.
    if (!wasReady && this.tail.some((l) => l.includes('already in use'))) this.port = null;
    this.child = null;
    this.url = null;
    this.health.stop();
    this.lastExit = { code, signal, at: new Date().toISOString() };
    // Asked for (a restart or a stop): restart() spawns the next one, stop() ends here.
    const expected = !this.lifecycle.can('crash');
    this.o.logger[expected ? 'info' : 'warn']({ generation, code, signal, expected }, 'runtime exited');
    this.waiters.exit(generation, true);
    if (expected) return;
    this.apply('crash');
    this.failures += 1;
    this.restarts += 1;
    if (!wasReady) {
      this.failedStartDiagnostics = this.childDiagnostics;
      this.waiters.startFailed(this.childDiagnostics);
    }
    const wait = this.backoff[Math.min(this.failures - 1, this.backoff.length - 1)];
    this.backoffTimer = setTimeout(() => {
      this.backoffTimer = null;
      this.spawnChild();
    }, wait);
    this.backoffTimer.unref();
  }
}
