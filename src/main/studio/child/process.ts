// One runtime child process: spawned in its own process group, its stdout read for the
// contract's ready line and its stderr for the diagnostics line (src/shared/runtime-contract.ts).
// It reports what happens through callbacks and decides nothing: the supervisor does.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { parseDiagnosticsLine, parseReadyLine, type ProjectDiagnostic } from '../../../shared/runtime-contract.ts';

export interface ChildListener {
  /** The first ready line (`line`): the child serves at `url`. */
  ready(url: string, line: string): void;
  /** The child printed why its project does not load. */
  diagnostics(diagnostics: ProjectDiagnostic[]): void;
  /** Any other stdout line. */
  stdout(line: string): void;
  /** Any other stderr line. */
  stderr(line: string): void;
  /** No ready line within the start timeout. */
  startTimedOut(): void;
  /** Called once: the process exited, or could not be started (`error`). */
  exit(code: number | null, signal: NodeJS.Signals | null, error?: Error): void;
}

export interface ChildLaunch {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  startTimeoutMs: number;
}

export class RuntimeChild {
  private exited = false;
  private readySeen = false;

  private constructor(private readonly process: ChildProcess) {}

  /** Starts the child; throws when the command cannot be spawned at all. */
  static launch(launch: ChildLaunch, listener: ChildListener): RuntimeChild {
    // Its own process group on POSIX: a Ctrl+C in the studio's terminal reaches only the
    // studio, which ends active runs `studio_shutdown` before it stops the runtime (a
    // runtime that died first would make them `runtime_restarted`).
    const proc = spawn(launch.command, launch.args, {
      env: launch.env,
      cwd: launch.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
    });
    const child = new RuntimeChild(proc);
    child.wire(launch.startTimeoutMs, listener);
    return child;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  kill(signal: NodeJS.Signals): void {
    this.process.kill(signal);
  }

  /** SIGTERM, SIGKILL after 5 s; resolves once the process is gone. */
  async terminate(): Promise<void> {
    const p = this.process;
    if (p.exitCode !== null || p.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => p.once('exit', () => resolve()));
    p.kill('SIGTERM');
    const timer = setTimeout(() => p.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(timer);
  }

  private wire(startTimeoutMs: number, listener: ChildListener): void {
    const p = this.process;
    const timeout = setTimeout(() => {
      if (!this.exited && !this.readySeen) listener.startTimedOut();
    }, startTimeoutMs);
    timeout.unref();
    const exit = (code: number | null, signal: NodeJS.Signals | null, error?: Error) => {
      if (this.exited) return;
      this.exited = true;
      clearTimeout(timeout);
      listener.exit(code, signal, error);
    };
    p.once('error', (err) => exit(null, null, err));
    p.once('exit', (code, signal) => exit(code, signal));
    readline.createInterface({ input: p.stdout! }).on('line', (line) => {
      const url = this.readySeen || this.exited ? null : parseReadyLine(line);
      if (!url) return listener.stdout(line);
      this.readySeen = true;
      clearTimeout(timeout);
      listener.ready(url, line);
    });
    readline.createInterface({ input: p.stderr! }).on('line', (line) => {
      const diagnostics = parseDiagnosticsLine(line);
      if (diagnostics) listener.diagnostics(diagnostics);
      else listener.stderr(line);
    });
  }
}
