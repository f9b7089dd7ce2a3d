// Shared by the runtime benchmarks: start a server process and read its URL from its ready
// line, its CPU time from /proc, and load it with concurrent message/send requests.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AgentCard } from '@a2a-js/sdk';
import { wrkAvailable, wrkLoad } from './wrk.ts';

export const REPO = path.resolve(import.meta.dirname, '..');
export const CONCURRENCY = 16;
export const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8000);
export const WARMUP_MS = 1500;

/** Starts a server process. Its log goes to the bench's stderr at LOG_LEVEL=warn, unless
 * `logFile` is given: then the process logs at its own default level (or env's LOG_LEVEL)
 * into that file, as a deployed server writes its log. */
export function start(args: string[], env: Record<string, string> = {}, logFile?: string): Promise<{ url: string; child: ChildProcess }> {
  const stderr = logFile ? fs.openSync(logFile, 'a') : 'inherit';
  const level = logFile ? {} : { LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, ...level, ...env }, stdio: ['ignore', 'pipe', stderr] });
  if (typeof stderr === 'number') fs.closeSync(stderr);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) resolve({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

/** CPU seconds a process has used so far (Linux /proc), or null where that is not readable. */
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();
export function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLK_TCK; // utime + stime
  } catch {
    return null;
  }
}

function body(text: string, contextId?: string) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: randomUUID(),
    method: 'message/send',
    params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text }], ...(contextId ? { contextId } : {}) } },
  });
}

export async function send(url: string, text: string, contextId?: string): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(text, contextId) });
  const json = (await res.json()) as any;
  if (json.error || json.result?.status?.state !== 'completed') throw new Error(`unexpected answer: ${JSON.stringify(json).slice(0, 300)}`);
  return json.result;
}

export function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Resolves once process `pid` has used no CPU over two readings 50 ms apart (at most 3 s). */
async function idle(pid: number | undefined): Promise<void> {
  if (pid === undefined) return;
  const until = Date.now() + 3000;
  let last = cpuSeconds(pid);
  while (last !== null && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = cpuSeconds(pid);
    if (now === last) return;
    last = now;
  }
}

/** The load generator: wrk when it is on PATH (bench/wrk.ts), else Node fetch loops here. */
export const LOADGEN = wrkAvailable() ? 'wrk' : 'node';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  n: number;
  cpuMsPerRequest: number | null;
}

/** `CONCURRENCY` clients sending message/send to `url` for `durationMs` after WARMUP_MS of
 * unmeasured load; CPU per request of process `pid` over the measured window. */
export async function load(url: string, text: string, pid?: number, durationMs = DURATION_MS): Promise<LoadResult> {
  if (LOADGEN === 'wrk') {
    await wrkLoad(url, text, CONCURRENCY, WARMUP_MS / 1000);
    // wrk leaves up to CONCURRENCY requests in flight when it stops: their CPU is not this
    // window's, so the window starts once the server has finished them.
    await idle(pid);
    const cpuAtStart = cpuSeconds(pid);
    const w = await wrkLoad(url, text, CONCURRENCY, durationMs / 1000);
    const cpuAtEnd = cpuSeconds(pid);
    const cpuMsPerRequest = cpuAtStart !== null && cpuAtEnd !== null ? ((cpuAtEnd - cpuAtStart) * 1000) / w.requests : null;
    return { rps: w.requests / w.seconds, p50: w.p50, p99: w.p99, n: w.requests, cpuMsPerRequest };
  }
  const latencies: number[] = [];
  let measuring = false;
  const stopAt = Date.now() + WARMUP_MS + durationMs;
  let cpuAtStart: number | null = null;
  setTimeout(() => {
    measuring = true;
    cpuAtStart = cpuSeconds(pid);
  }, WARMUP_MS);
  let startedAt = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < stopAt) {
        const t0 = performance.now();
        await send(url, text);
        if (measuring) {
          if (!startedAt) startedAt = t0;
          latencies.push(performance.now() - t0);
        }
      }
    }),
  );
  const seconds = (performance.now() - startedAt) / 1000;
  const cpuAtEnd = cpuSeconds(pid);
  const cpuMsPerRequest = cpuAtStart !== null && cpuAtEnd !== null ? ((cpuAtEnd - cpuAtStart) * 1000) / latencies.length : null;
  latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), n: latencies.length, cpuMsPerRequest };
}

/** The agent card of a bench baseline server. */
export function benchCard(name: string, description: string): AgentCard {
  return {
    protocolVersion: '0.3.0',
    name,
    description,
    version: '1.0.0',
    url: 'http://127.0.0.1/',
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'bench', name: 'Bench', description, tags: [] }],
  };
}
