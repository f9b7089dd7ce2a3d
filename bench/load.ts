// Shared by the runtime benchmarks: start a server process and read its URL from its ready
// line, its CPU time from /proc, and load it with concurrent message/send requests.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AgentCard } from '@a2a-js/sdk';

export const REPO = path.resolve(import.meta.dirname, '..');
export const CONCURRENCY = 16;
export const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8000);
export const WARMUP_MS = 1500;

export function start(args: string[], env: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
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

export async function load(url: string, text: string, pid?: number, durationMs = DURATION_MS) {
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
