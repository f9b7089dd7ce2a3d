// Starts the real runtime in-process on a free loopback port, with a fresh data dir, and
// hands back the official A2A client pointed at it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { EventEmitter } from 'node:events';
import pino from 'pino';
import { A2AClient } from '@a2a-js/sdk/client';
import type { AgentCard, Message, MessageSendParams, Part } from '@a2a-js/sdk';
import { startRuntime, type RunningRuntime } from '../../../src/main/runtime/start.ts';
import { runtimeClient } from '../../../src/main/playground/executor/a2a.ts';
import type { TraceEvent, TraceSink } from '../../../src/main/runtime/observability/trace.ts';

export const REPO = path.resolve(import.meta.dirname, '../../..');

/** The official A2A client on `url` without fetching its card, sending `headers` (a caller's
 * credential) with every request. */
export function a2aClientWith(url: string, headers: Record<string, string> = {}): A2AClient {
  return runtimeClient(url, undefined, headers);
}
export const EXAMPLE = path.join(REPO, 'examples/support-desk');

export interface TestRuntime {
  url: string;
  client: A2AClient;
  traces: TraceEvent[];
  runtime: RunningRuntime;
  dataDir: string;
  close(): Promise<void>;
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
}

/** A copy of the example inside the repo (so 'agent-studio/sdk' resolves), to edit freely. */
export function copyExample(name: string): string {
  const dir = path.join(REPO, 'test/.tmp', `${name}-${randomUUID().slice(0, 8)}`);
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  fs.cpSync(EXAMPLE, dir, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });
  return dir;
}

export async function startTestRuntime(
  opts: { projectDir?: string; env?: Record<string, string>; dataDir?: string; logger?: pino.Logger } = {},
): Promise<TestRuntime> {
  const traces: TraceEvent[] = [];
  const sink: TraceSink = { emit: (e) => traces.push(e) };
  const dataDir = opts.dataDir ?? tempDir('rt-data');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, AGENT_ID: 'test-agent', SCRIPTED_DELAY_MS: '0', ...opts.env };
  const runtime = await startRuntime({
    projectDir: opts.projectDir ?? EXAMPLE,
    port: 0,
    host: '127.0.0.1',
    dataDir,
    env,
    logger: opts.logger ?? pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    sinks: [sink],
  });
  // The card may advertise a PUBLIC_AGENT_URL that is not this test server: talk to the server.
  const card = (await (await fetch(`${runtime.url}.well-known/agent-card.json`)).json()) as AgentCard;
  const client = new A2AClient({ ...card, url: runtime.url });
  return { url: runtime.url, client, traces, runtime, dataDir, close: () => runtime.close() };
}

export function userMessage(parts: Part[] | string, extra: Partial<Message> = {}): Message {
  return {
    kind: 'message',
    role: 'user',
    messageId: randomUUID(),
    parts: typeof parts === 'string' ? [{ kind: 'text', text: parts }] : parts,
    ...extra,
  };
}

export function sendParams(parts: Part[] | string, extra: Partial<Message> = {}, more: Partial<MessageSendParams> = {}): MessageSendParams {
  return { message: userMessage(parts, extra), ...more };
}

/** Raw JSON-RPC over fetch, for inputs the client library would refuse to build. */
export async function rawRpc(url: string, body: unknown): Promise<any> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return res.json();
}

export interface RuntimeProcess {
  url: string;
  pid: number;
  /** Resolves when the process has exited (for a kill -9). */
  exited: Promise<unknown>;
  /** Trace events the process wrote to its structured log (stderr), in order. */
  traces: TraceEvent[];
  /** Resolves with the first trace event (already read or arriving later) that matches. */
  until(pred: (e: TraceEvent) => boolean, timeoutMs?: number): Promise<TraceEvent>;
  close(): Promise<void>;
}

/** The runtime as users run it: `agent-studio runtime` in its own process; its trace events
 * are read from the structured-log sink on stderr. `dataDir`: share one SQLite file between
 * processes (as `--workers` does). */
export async function spawnRuntime(projectDir: string, env: Record<string, string> = {}, opts: { dataDir?: string } = {}): Promise<RuntimeProcess> {
  // Tests that need the started process kill it with -9 (`pid`); `exited` says when it is gone.
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', projectDir, '--port', '0', '--data-dir', opts.dataDir ?? tempDir('rt-proc')],
    {
      // LOG_LEVEL=debug: every trace event is a log line (at info only invoke.end is).
      env: { PATH: process.env.PATH, AGENT_ID: 'test-agent', SCRIPTED_DELAY_MS: '0', LOG_LEVEL: 'debug', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const traces: TraceEvent[] = [];
  const arrivals = new EventEmitter();
  readline.createInterface({ input: child.stderr! }).on('line', (line) => {
    try {
      const entry = JSON.parse(line) as { trace?: TraceEvent };
      if (entry.trace) {
        traces.push(entry.trace);
        arrivals.emit('trace', entry.trace);
      }
    } catch {
      // a plain line (start errors): not a trace event
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = / ready at (http:\/\/\S+\/)$/.exec(line);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`the runtime exited with code ${code}`)));
  });
  const until = (pred: (e: TraceEvent) => boolean, timeoutMs = 10_000) =>
    new Promise<TraceEvent>((resolve, reject) => {
      const seen = traces.find(pred);
      if (seen) return resolve(seen);
      const timer = setTimeout(() => {
        arrivals.off('trace', onTrace);
        reject(new Error('no matching trace event in time'));
      }, timeoutMs);
      const onTrace = (e: TraceEvent) => {
        if (!pred(e)) return;
        clearTimeout(timer);
        arrivals.off('trace', onTrace);
        resolve(e);
      };
      arrivals.on('trace', onTrace);
    });
  return {
    url,
    pid: child.pid!,
    exited: child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', r)),
    traces,
    until,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
