// Playground event store benchmark (docs/performance.md, "Playground event store"), in one run:
//  1. raw batched better-sqlite3 insert rate into the run_events table (the ceiling);
//  2. ingest rate of the real append path (EventLog.append: seq, JSON, bus publish to a
//     live subscriber, batched transactions) fed by a producer as fast as it can go;
//  3. end to end: a run of the headless studio whose runtime streams N chunks as fast as
//     it can (a stub A2A runtime, this same file started with --stub-runtime, because the
//     example's scripted model streams at most one chunk per word), events/s as stored;
//  4. replay time of a 10,000-event run to an SSE client over HTTP (first and median of 5).
// Usage: node bin/run-ts.mjs bench/playground.bench.ts
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createParser } from 'eventsource-parser';
import pino from 'pino';
import { EventBus } from '../src/main/playground/events/bus.ts';
import { EventLog } from '../src/main/playground/events/log.ts';
import { newSessionId } from '../src/main/playground/ids.ts';
import { insertTestRun } from '../src/main/playground/store/test-support.ts';
import { openDatabase } from '../src/main/playground/store/db.ts';
import { PlaygroundStore } from '../src/main/playground/store/store.ts';
import { startStudio } from '../src/main/studio/studio.ts';

const REPO = path.resolve(import.meta.dirname, '..');
const RAW_ROWS = Number(process.env.BENCH_RAW_ROWS ?? 200_000);
const INGEST_EVENTS = Number(process.env.BENCH_INGEST_EVENTS ?? 200_000);
const STREAM_CHUNKS = Number(process.env.BENCH_STREAM_CHUNKS ?? 20_000);
const REPLAY_EVENTS = 10_000;
const BATCH = 1000;

const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), `pg-bench-${p}-`));
const delta = (runId: string, seq: number) =>
  JSON.stringify({ seq, run_id: runId, ts: new Date().toISOString(), kind: 'output.delta', text: `chunk ${seq} of a fast-streaming answer ` });

function newRun(store: PlaygroundStore, status: 'running' | 'completed' = 'running'): string {
  const session = store.insertSession(newSessionId(), 'bench', new Date().toISOString());
  return insertTestRun(store, session.session_id, { status, input_parts: [{ kind: 'text', text: 'bench' }] });
}

/** 1. Prepared INSERT into run_events, BATCH rows per transaction: the ceiling. */
function rawInsertRate(): number {
  const dir = tmp('raw');
  const db = openDatabase(path.join(dir, 'p.sqlite'));
  const store = new PlaygroundStore(db);
  const runId = newRun(store);
  const insert = db.prepare('INSERT INTO run_events (run_id, seq, kind, body) VALUES (?, ?, ?, ?)');
  const rows = Array.from({ length: RAW_ROWS }, (_, i) => delta(runId, i + 1));
  const write = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) insert.run(runId, i + 1, 'output.delta', rows[i]);
  });
  const t0 = performance.now();
  for (let i = 0; i < RAW_ROWS; i += BATCH) write(i, Math.min(RAW_ROWS, i + BATCH));
  const ms = performance.now() - t0;
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return (RAW_ROWS / ms) * 1000;
}

/** 2. The append path as the executor uses it, with one live subscriber on the bus. The
 * producer yields to the event loop every BATCH events, as a network stream does, so the
 * timer-driven flush takes part too. Timed until the last event is written. */
async function appendPathRate(): Promise<{ rate: number; batches: number }> {
  const dir = tmp('ingest');
  const store = PlaygroundStore.open(path.join(dir, 'p.sqlite'));
  const bus = new EventBus();
  const log = new EventLog(store, bus);
  const runId = newRun(store);
  let seen = 0;
  bus.subscribe(runId, () => (seen += 1));
  const t0 = performance.now();
  for (let i = 0; i < INGEST_EVENTS; i++) {
    log.append(runId, 'output.delta', { text: `chunk ${i} of a fast-streaming answer ` });
    if (i % BATCH === BATCH - 1) await new Promise((r) => setImmediate(r));
  }
  log.flush();
  const ms = performance.now() - t0;
  if (seen !== INGEST_EVENTS || store.maxStoredSeq(runId) !== INGEST_EVENTS) throw new Error('append path lost events');
  const batches = log.stats.batches;
  store.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { rate: (INGEST_EVENTS / ms) * 1000, batches };
}

/** 3. The stub runtime: /healthz, and message/stream answering STREAM_CHUNKS chunks. */
function runStubRuntime(port: number): void {
  const sse = (id: unknown, result: unknown) => `data: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`;
  http
    .createServer((req, res) => {
      if (req.method === 'GET' && req.url === '/healthz') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const rpc = JSON.parse(raw);
        const chunks = Number(rpc.params?.metadata?.scriptedChunks ?? STREAM_CHUNKS);
        const taskId = 'task-1';
        const contextId = rpc.params?.message?.contextId ?? 'ctx-1';
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(sse(rpc.id, { kind: 'task', id: taskId, contextId, status: { state: 'submitted' }, history: [], artifacts: [] }));
        let buf = '';
        for (let i = 0; i < chunks; i++) {
          const artifact = { artifactId: 'response', parts: [{ kind: 'text', text: `chunk ${i} ` }] };
          buf += sse(rpc.id, { kind: 'artifact-update', taskId, contextId, append: i > 0, lastChunk: false, artifact });
          if (buf.length > 64_000) {
            res.write(buf);
            buf = '';
          }
        }
        buf += sse(rpc.id, {
          kind: 'artifact-update',
          taskId,
          contextId,
          append: false,
          lastChunk: true,
          artifact: { artifactId: 'response', parts: [{ kind: 'text', text: 'done' }] },
        });
        buf += sse(rpc.id, { kind: 'status-update', taskId, contextId, status: { state: 'completed' }, final: true });
        res.end(buf);
      });
    })
    .listen(port, '127.0.0.1', () => process.stdout.write(`stub runtime ready at http://127.0.0.1:${port}/\n`));
}

async function endToEnd(): Promise<{ events: number; ms: number; rate: number }> {
  const dataDir = tmp('e2e');
  const studio = await startStudio({
    projectDir: path.join(REPO, 'examples/support-desk'),
    dataDir,
    logger: pino({ level: 'silent' }),
    runtimeCommand: (ctx) => ({
      command: process.execPath,
      args: [path.join(REPO, 'bin/run-ts.mjs'), path.join(REPO, 'bench/playground.bench.ts'), '--stub-runtime', String(ctx.port)],
    }),
  });
  try {
    await studio.runtime.waitReady(30_000);
    const api = `${studio.url}api/playground/v1`;
    const post = async (p: string, body: unknown) =>
      (await fetch(`${api}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<any>;
    const session = await post('/sessions', {});
    const t0 = performance.now();
    const accepted = await post(`/sessions/${session.session_id}/runs`, { parts: [{ kind: 'text', text: 'go' }], metadata: { scriptedChunks: STREAM_CHUNKS } });
    let run: any;
    do {
      await new Promise((r) => setTimeout(r, 5));
      run = await (await fetch(`${api}/runs/${accepted.run_id}`)).json();
    } while (run.status !== 'completed' && run.status !== 'failed');
    const ms = performance.now() - t0;
    if (run.status !== 'completed') throw new Error(`stub run ended ${run.status}: ${JSON.stringify(run.output_parts)}`);
    return { events: run.last_seq, ms, rate: (run.last_seq / ms) * 1000 };
  } finally {
    await studio.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** 4. A finished 10,000-event run, replayed over HTTP to a client that parses every event. */
async function replayTimes(): Promise<{ first: number; median: number; bytes: number }> {
  const dataDir = tmp('replay');
  const store = PlaygroundStore.open(path.join(dataDir, 'playground.sqlite'));
  const log = new EventLog(store, new EventBus());
  const runId = newRun(store, 'completed');
  for (let i = 0; i < REPLAY_EVENTS - 1; i++) log.append(runId, 'output.delta', { text: `chunk ${i} of a long answer ` });
  log.append(runId, 'run.status', { status: 'completed' });
  log.close();
  store.close();
  const studio = await startStudio({ projectDir: path.join(REPO, 'examples/support-desk'), dataDir, logger: pino({ level: 'silent' }), runtimeCommand: false });
  const url = `${studio.url}api/playground/v1/runs/${runId}/events`;
  const times: number[] = [];
  let bytes = 0;
  try {
    for (let i = 0; i < 6; i++) {
      const t0 = performance.now();
      let count = 0;
      const parser = createParser({ onEvent: () => (count += 1) });
      const res = await fetch(url, { headers: { accept: 'text/event-stream' } });
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      bytes = 0;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        bytes += value.length;
        parser.feed(value);
      }
      times.push(performance.now() - t0);
      if (count !== REPLAY_EVENTS) throw new Error(`replayed ${count} events, expected ${REPLAY_EVENTS}`);
    }
  } finally {
    await studio.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
  const rest = times.slice(1).sort((a, b) => a - b);
  return { first: times[0], median: rest[Math.floor(rest.length / 2)], bytes };
}

async function main(): Promise<void> {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const cpus = os.cpus();
  process.stdout.write(`machine: ${cpus.length} cores (${cpus[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}\n`);
  const raw = rawInsertRate();
  process.stdout.write(`raw batched insert:  ${fmt(raw)} rows/s (${fmt(RAW_ROWS)} rows, ${BATCH} per transaction)\n`);
  const ingest = await appendPathRate();
  process.stdout.write(
    `append path ingest:  ${fmt(ingest.rate)} events/s (${fmt(INGEST_EVENTS)} events in ${ingest.batches} transactions), ${(ingest.rate / raw).toFixed(2)}x raw (target >= 0.5x)\n`,
  );
  const e2e = await endToEnd();
  process.stdout.write(
    `end to end run:      ${fmt(e2e.rate)} events/s (${fmt(e2e.events)} events in ${fmt(e2e.ms)} ms through A2A stream, executor and append path)\n`,
  );
  const replay = await replayTimes();
  process.stdout.write(
    `replay 10,000 events over SSE: first ${replay.first.toFixed(1)} ms, median of 5 ${replay.median.toFixed(1)} ms (${fmt(replay.bytes)} bytes; target < 300 ms)\n`,
  );
}

const stubAt = process.argv.indexOf('--stub-runtime');
if (stubAt >= 0) runStubRuntime(Number(process.argv[stubAt + 1]));
else
  await main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
