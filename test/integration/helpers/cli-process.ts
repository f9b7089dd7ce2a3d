// `agent-studio runtime` as an operator runs it, in its own process: its ready line (stdout)
// and its JSON log lines (stderr) can be awaited, its exit observed, real signals sent.
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { EventEmitter } from 'node:events';
import { REPO } from './runtime.ts';

export interface LogEntry {
  msg?: string;
  level?: number;
  [key: string]: unknown;
}

export function runRuntimeCli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', ...args], {
    env: { PATH: process.env.PATH, AGENT_ID: 'test-agent', SCRIPTED_DELAY_MS: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const entries: LogEntry[] = [];
  const arrivals = new EventEmitter();
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    try {
      const entry = JSON.parse(line) as LogEntry;
      entries.push(entry);
      arrivals.emit('entry', entry);
    } catch {
      // a plain line (a start error)
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = / ready at (http:\/\/\S+\/)$/m.exec(stdout);
      if (m) resolve(m[1]);
    });
    void exited.then(({ code }) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  ready.catch(() => undefined);
  /** The first log entry (already written or arriving later) that matches. */
  const until = (pred: (e: LogEntry) => boolean, what: string, timeoutMs = 30_000) =>
    new Promise<LogEntry>((resolve, reject) => {
      const seen = entries.find(pred);
      if (seen) return resolve(seen);
      const timer = setTimeout(() => {
        arrivals.off('entry', onEntry);
        reject(new Error(`no log entry '${what}' within ${timeoutMs} ms; stderr:\n${stderr}`));
      }, timeoutMs);
      const onEntry = (e: LogEntry) => {
        if (!pred(e)) return;
        clearTimeout(timer);
        arrivals.off('entry', onEntry);
        resolve(e);
      };
      arrivals.on('entry', onEntry);
    });
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  return { child, exited, ready, entries, until, kill, out: () => stdout, err: () => stderr };
}

export type RuntimeCli = ReturnType<typeof runRuntimeCli>;

/** A log entry whose message matches. */
export const logged = (re: RegExp) => (e: LogEntry) => re.test(e.msg ?? '');
