// Starts the real headless studio (startStudio: the Playground API over HTTP on a free
// loopback port, with the real supervised runtime child on the example project) and gives
// tests small HTTP and SSE clients for it.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import pino from 'pino';
import type { RunDetail, RunEvent } from '../../../src/shared/playground.ts';
import { PLAYGROUND_PREFIX, TERMINAL_STATES } from '../../../src/shared/playground.ts';
import { startStudio, type RunningStudio, type StudioOptions } from '../../../src/main/studio/studio.ts';

import { copyExample, EXAMPLE, REPO, tempDir } from './runtime.ts';

export { copyExample, EXAMPLE, REPO, tempDir };
export const BIN = path.join(REPO, 'bin/agent-studio.mjs');

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestStudio {
  studio: RunningStudio;
  url: string;
  api: string;
  dataDir: string;
  call<T = any>(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export const quietLogger = () => pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export async function startTestStudio(opts: Partial<StudioOptions> = {}): Promise<TestStudio> {
  const dataDir = opts.dataDir ?? tempDir('studio-data');
  const studio = await startStudio({
    projectDir: EXAMPLE,
    port: 0,
    logger: quietLogger(),
    runtimeBackoffMs: [100, 250, 500, 1000],
    ...opts,
    dataDir,
  });
  const api = `${studio.url}api/playground/v1`;
  return {
    studio,
    url: studio.url,
    api,
    dataDir,
    call: (method, p, body, headers) => call(api, method, p, body, headers),
    close: () => studio.close(),
  };
}

export async function call<T = any>(api: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
  const res = await fetch(`${api}${p}`, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // keep the text
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** A raw HTTP request, so tests can send any Host header (fetch manages Host itself). */
export function rawRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (data += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: data }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export async function waitForRun(
  t: Pick<TestStudio, 'call'>,
  runId: string,
  until: (r: RunDetail) => boolean = (r) => TERMINAL_STATES.includes(r.status),
  timeoutMs = 30_000,
): Promise<RunDetail> {
  const run = await waitFor(
    async () => {
      const res = await t.call<RunDetail>('GET', `/runs/${runId}`);
      return res.status === 200 && until(res.body) ? res.body : null;
    },
    timeoutMs,
    `run ${runId}`,
  );
  if (UNANSWERED.includes(run.status)) endings.set(run, await lastEvents(t, runId).catch((err: Error) => [`events: ${err.message}`]));
  return run;
}

/** Runs that ended without an answer, whose last events `explain` shows. */
const UNANSWERED: readonly string[] = ['failed', 'cancelled', 'interrupted'];
const endings = new WeakMap<RunDetail, string[]>();

/** A terminal run's last events (its SSE stream ends once replayed), each as JSON of at most
 * 1,000 characters. */
async function lastEvents(t: Pick<TestStudio, 'call'>, runId: string, n = 6): Promise<string[]> {
  const res = await t.call<string>('GET', `/runs/${runId}/events`);
  if (res.status !== 200 || typeof res.body !== 'string') return [`events: HTTP ${res.status}`];
  const events: Record<string, unknown>[] = [];
  createParser({ onEvent: (e) => events.push(JSON.parse(e.data) as Record<string, unknown>) }).feed(res.body);
  return events
    .filter((e) => e.kind !== 'output.delta')
    .slice(-n)
    .map(({ run_id: _r, ts: _t, ...e }) => JSON.stringify(e).slice(0, 1_000));
}

/** Why a run ended as it did, for an assertion's message: its status and reason, the parts it
 * ended with (a failure's error and data parts say what the runtime reported) and, for a run
 * that ended without an answer, its last events. `expect(run.reason, explain(run)).toBe(...)`. */
export function explain(run: RunDetail): string {
  const parts = run.output_parts.filter((p) => p.kind !== 'text' || p.partial);
  const events = endings.get(run);
  return [
    `run ${run.run_id} ended ${run.status}${run.reason ? ` (${run.reason})` : ''}`,
    `output parts: ${JSON.stringify(parts)}`,
    ...(events ? [`last events:\n  ${events.join('\n  ')}`] : []),
  ].join('; ');
}

export interface SseMessage {
  id: string | undefined;
  event: string | undefined;
  data: RunEvent;
}

export interface EventStream {
  messages: SseMessage[];
  /** Resolves when the server ends the stream (or rejects on a network error). */
  ended: Promise<void>;
  /** Resolves with the first message matching the predicate (already received or later). */
  next(pred: (m: SseMessage) => boolean, timeoutMs?: number): Promise<SseMessage>;
  close(): void;
  status: Promise<number>;
}

/** Follows GET /runs/{id}/events with fetch and eventsource-parser, as the renderer does. */
export function openEvents(api: string, runId: string, opts: { lastEventId?: number; after?: number; signal?: AbortSignal } = {}): EventStream {
  const controller = new AbortController();
  opts.signal?.addEventListener('abort', () => controller.abort());
  const messages: SseMessage[] = [];
  const waiters: { pred: (m: SseMessage) => boolean; resolve: (m: SseMessage) => void }[] = [];
  let resolveStatus!: (s: number) => void;
  const status = new Promise<number>((r) => (resolveStatus = r));
  const qs = opts.after !== undefined ? `?after=${opts.after}` : '';
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
  const ended = (async () => {
    try {
      const res = await fetch(`${api}/runs/${runId}/events${qs}`, { headers, signal: controller.signal });
      resolveStatus(res.status);
      if (!res.ok || !res.body) return;
      const parser = createParser({
        onEvent(e) {
          const m: SseMessage = { id: e.id, event: e.event, data: JSON.parse(e.data) as RunEvent };
          messages.push(m);
          for (const w of [...waiters]) {
            if (w.pred(m)) {
              waiters.splice(waiters.indexOf(w), 1);
              w.resolve(m);
            }
          }
        },
      });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
    }
  })();
  ended.catch(() => undefined);
  return {
    messages,
    ended,
    status,
    close: () => controller.abort(),
    next(pred, timeoutMs = 30_000) {
      const found = messages.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('timed out waiting for an event')), timeoutMs);
        waiters.push({
          pred,
          resolve: (m) => {
            clearTimeout(timer);
            resolve(m);
          },
        });
      });
    },
  };
}

export const isTerminal = (m: SseMessage) => m.data.kind === 'run.status' && TERMINAL_STATES.includes(m.data.status);

/** Asserts seqs are exactly from..to, in order, once each. */
export function seqs(messages: SseMessage[]): number[] {
  return messages.map((m) => m.data.seq);
}

export function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
}

export { PLAYGROUND_PREFIX };

export interface EditableStudio {
  /** A copy of the example the test may edit. */
  dir: string;
  t: TestStudio;
  /** An empty session to send to. */
  session: string;
  close(): Promise<void>;
}

/** A studio (with its runtime ready) on a fresh copy of the example, and one session. */
export async function openEditableStudio(name: string): Promise<EditableStudio> {
  const dir = copyExample(name);
  const t = await startTestStudio({ projectDir: dir });
  await t.studio.runtime.waitReady(60_000);
  const session = (await t.call('POST', '/sessions', {})).body.session_id as string;
  return {
    dir,
    t,
    session,
    close: async () => {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
