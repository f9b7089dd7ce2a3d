// Shared by the debugger benchmarks (thread-state, fork): the headless studio on the example
// in a data dir of its own, a JSON client of its Playground API, and one session grown to a
// long thread, one completed turn after another.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startStudio, type RunningStudio } from '../src/main/studio/studio.ts';
import { REPO, pct } from './load.ts';

export const TEXTS = ['Where is my order ORD-12345?', 'I want a refund for order ORD-12345. Where is my order ORD-23456?', 'How do I reset my password?'];

export interface BenchStudio {
  studio: RunningStudio;
  dataDir: string;
  json(method: string, p: string, body?: unknown): Promise<any>;
  /** Resolves when the run has ended; throws unless it completed. */
  ended(runId: string): Promise<void>;
}

export async function startBenchStudio(name: string): Promise<BenchStudio> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `${name}-bench-`));
  process.env.SCRIPTED_DELAY_MS = '0';
  const studio = await startStudio({ projectDir: path.join(REPO, 'examples/support-desk'), port: 0, dataDir, logger: pino({ level: 'warn' }) });
  const api = `${studio.url}api/playground/v1`;
  const json = async (method: string, p: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${api}${p}`, {
      method,
      headers: body ? { 'content-type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    if (!res.ok) throw new Error(`${method} ${p}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  const ended = async (runId: string): Promise<void> => {
    for (;;) {
      const run = await json('GET', `/runs/${runId}`);
      if (!['queued', 'preparing', 'running'].includes(run.status)) {
        if (run.status !== 'completed') throw new Error(`run ${runId} ended ${run.status}`);
        return;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  return { studio, dataDir, json, ended };
}

/** A session of `turns` completed turns (TEXTS in turn; `lastText` for the last one): its id,
 * its runs in order and the seconds it took. */
export async function longThread(b: BenchStudio, turns: number, lastText?: string): Promise<{ session: string; runs: string[]; seconds: number }> {
  const session = (await b.json('POST', '/sessions', { title: 'bench' })).session_id as string;
  const runs: string[] = [];
  const t0 = Date.now();
  for (let i = 0; i < turns; i++) {
    const text = i === turns - 1 && lastText ? lastText : TEXTS[i % TEXTS.length];
    const { run_id } = await b.json('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text }] });
    await b.ended(run_id);
    runs.push(run_id);
  }
  return { session, runs, seconds: Math.round((Date.now() - t0) / 1000) };
}

/** The p50 in ms of `samples` calls of `fn`, after `warm` calls that are not counted. */
export async function p50Of(fn: () => Promise<unknown>, samples: number, warm = 1): Promise<number> {
  for (let i = 0; i < warm; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const s = performance.now();
    await fn();
    ms.push(performance.now() - s);
  }
  return pct(
    ms.sort((a, b) => a - b),
    50,
  );
}
