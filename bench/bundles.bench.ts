// POST /bundles/export of a session whose runs reference 100 MB of files (100 distinct
// 1 MB blobs), over HTTP against the headless studio, streamed to a client that only counts
// bytes; the studio's resident memory is sampled during the export. Beside it, in the same
// run, what one would write by hand: build the whole bundle object in memory (every blob
// read and base64-encoded) and JSON.stringify it.
// Then POST /bundles/import of a 1 GB bundle (256 runs, each with a distinct 3 MB file, and
// 102,400 events) streamed from a file into a fresh studio: time and the process's peak
// resident memory growth (D-96: bounded, whatever the bundle's size).
// Usage: node --expose-gc bin/run-ts.mjs bench/bundles.bench.ts [--import-only]
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { newSessionId } from '../src/main/playground/ids.ts';
import { BlobStore } from '../src/main/playground/store/blobs.ts';
import { PlaygroundStore } from '../src/main/playground/store/store.ts';
import { insertTestRun } from '../src/main/playground/store/test-support.ts';
import { startStudio } from '../src/main/studio/studio.ts';
import type { TaggedPart } from '../src/shared/playground.ts';
import { REPO } from './load.ts';

const FILES = 100;
const FILE_BYTES = 1024 * 1024;
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MB`;

function seed(dataDir: string): string {
  const store = PlaygroundStore.open(path.join(dataDir, 'playground.sqlite'));
  const blobs = new BlobStore(path.join(dataDir, 'blobs'));
  const session = store.insertSession(newSessionId(), 'bench', new Date().toISOString());
  for (let i = 0; i < FILES; i++) {
    const bytes = crypto.randomBytes(FILE_BYTES);
    const { sha256, size } = blobs.put(bytes);
    const part: TaggedPart = { kind: 'file', source: 'inline', sha256, size, name: `file-${i}.bin`, mime_type: 'application/octet-stream' };
    const id = insertTestRun(store, session.session_id, { input_parts: [{ kind: 'text', text: `file ${i}` }, part] });
    store.linkBlob(id, sha256, size, new Date().toISOString());
  }
  store.close();
  return session.session_id;
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bundles-'));
  const sessionId = seed(dataDir);
  const studio = await startStudio({ projectDir: path.join(REPO, 'examples/support-desk'), dataDir, logger: pino({ level: 'silent' }), runtimeCommand: false });
  try {
    global.gc?.();
    const base = process.memoryUsage().rss;
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const t0 = performance.now();
    const res = await fetch(`${studio.url}api/playground/v1/bundles/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_ids: [sessionId] }),
    });
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    const ms = performance.now() - t0;
    clearInterval(sampler);
    const streamedPeak = peak - base;

    // By hand: the whole bundle in memory, then one string.
    global.gc?.();
    const base2 = process.memoryUsage().rss;
    let peak2 = base2;
    const sampler2 = setInterval(() => (peak2 = Math.max(peak2, process.memoryUsage().rss)), 5);
    const t1 = performance.now();
    const blobsDir = path.join(dataDir, 'blobs');
    const blobs: Record<string, { bytes_base64: string; size: number }> = {};
    for (const f of fs.readdirSync(blobsDir)) {
      const b = fs.readFileSync(path.join(blobsDir, f));
      blobs[f] = { bytes_base64: b.toString('base64'), size: b.length };
    }
    const whole = JSON.stringify({ format: 'svc.playground.bundle/1', sessions: [], runs: [], events: [], blobs });
    const ms2 = performance.now() - t1;
    await new Promise((r) => setTimeout(r, 20));
    clearInterval(sampler2);
    const naivePeak = peak2 - base2;

    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
    console.log(`bundle: ${FILES} files of 1 MB, ${mb(bytes)} of JSON (base64)`);
    console.log(`streamed export over HTTP: ${ms.toFixed(0)} ms, studio memory growth at peak ${mb(streamedPeak)} (client counts bytes only)`);
    console.log(`built in memory by hand:   ${ms2.toFixed(0)} ms, memory growth at peak ${mb(naivePeak)} (string of ${mb(whole.length)})`);
    console.log(`memory ratio streamed / in memory: ${(streamedPeak / naivePeak).toFixed(2)}`);
    process.exitCode = streamedPeak < 64 * 1024 * 1024 ? 0 : 1;
  } finally {
    await studio.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const IMPORT_RUNS = Number(/--import-runs=(\d+)/.exec(process.argv.join(' '))?.[1] ?? 256);
const IMPORT_FILE_BYTES = 3 * 1024 * 1024;
const IMPORT_EVENTS = IMPORT_RUNS * 400;

/** Writes the 1 GB bundle to a file, a run's file at a time. */
async function writeBigBundle(file: string): Promise<number> {
  const out = fs.createWriteStream(file);
  const put = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
  const t = '2026-11-28T00:00:00.000Z';
  const files = Array.from({ length: IMPORT_RUNS }, (_, i) => crypto.createHash('sha256').update(`seed ${i}`).digest());
  // Each file: 3 MB from a per-run seed (regenerated when written, so only one is in memory).
  const bytesOf = (i: number) =>
    crypto
      .createHash('sha512')
      .update(files[i])
      .digest()
      .toString('hex')
      .repeat(IMPORT_FILE_BYTES / 128);
  const shas: string[] = [];
  await put(`{"format":"svc.playground.bundle/1","sessions":[{"session_id":"s1","title":"big","created_at":"${t}","updated_at":"${t}"}],"runs":[`);
  for (let i = 0; i < IMPORT_RUNS; i++) {
    const b = Buffer.from(bytesOf(i));
    const sha = crypto.createHash('sha256').update(b).digest('hex');
    shas.push(sha);
    const part = { kind: 'file', source: 'inline', sha256: sha, size: b.length, name: `f${i}.bin` };
    const run = {
      run_id: `r${String(i).padStart(4, '0')}`,
      session_id: 's1',
      parent_run_id: null,
      origin: 'send',
      status: 'completed',
      reason: null,
      created_at: t,
      started_at: t,
      ended_at: t,
      input_parts: [{ kind: 'text', text: `file ${i}` }, part],
      output_parts: [],
      scores: [],
      metadata: {},
      changed_files: [],
      revision: null,
    };
    await put((i ? ',' : '') + JSON.stringify(run));
  }
  await put('],"events":[');
  const perRun = IMPORT_EVENTS / IMPORT_RUNS;
  for (let i = 0; i < IMPORT_EVENTS; i++) {
    const run = `r${String(Math.floor(i / perRun)).padStart(4, '0')}`;
    const seq = (i % perRun) + 1;
    await put((i ? ',' : '') + JSON.stringify({ seq, run_id: run, ts: t, kind: 'output.delta', text: `a token of streamed output number ${i} ` }));
  }
  await put('],"blobs":{');
  const order = shas.map((sha, i) => [sha, i] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  for (const [j, [sha, i]] of order.entries()) {
    await put(`${j ? ',' : ''}"${sha}":{"bytes_base64":"`);
    const b = Buffer.from(bytesOf(i));
    for (let o = 0; o < b.length; o += 3 * 64 * 1024) await put(b.subarray(o, o + 3 * 64 * 1024).toString('base64'));
    await put(`","size":${b.length}}`);
  }
  await put('},"source":{"project":"bench","schema_version":1},"input_contracts":null}');
  await new Promise<void>((r) => out.end(r));
  return fs.statSync(file).size;
}

async function importBench() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-bundle-import-'));
  try {
    const file = path.join(dir, 'big.agentbundle.json');
    const size = await writeBigBundle(file);
    const studio = await startStudio({
      projectDir: path.join(REPO, 'examples/support-desk'),
      dataDir: path.join(dir, 'data'),
      logger: pino({ level: 'silent' }),
      runtimeCommand: false,
    });
    try {
      global.gc?.();
      const base = process.memoryUsage().rss;
      let peak = base;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
      // The heap after a full collection, each second: what the import keeps (the peak above
      // also counts garbage V8 has not collected yet).
      const kept: number[] = [];
      const gcTimer = setInterval(() => {
        global.gc?.();
        kept.push(process.memoryUsage().heapUsed);
      }, 1000);
      const t0 = performance.now();
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = http.request(
          `${studio.url}api/playground/v1/bundles/import`,
          { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(size) } },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (c) => (body += c));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        pipeline(fs.createReadStream(file, { highWaterMark: 1024 * 1024 }), req).catch(reject);
      });
      const ms = performance.now() - t0;
      clearInterval(sampler);
      clearInterval(gcTimer);
      if (answer.status !== 201) throw new Error(`import answered ${answer.status}: ${answer.body.slice(0, 500)}`);
      const result = JSON.parse(answer.body) as { create: { runs: number; events: number }; blobs: { new: number; bytes_new: number } };
      console.log(
        `bundle import: ${mb(size)} of JSON (${IMPORT_RUNS} runs, ${result.blobs.new} files of ${mb(IMPORT_FILE_BYTES)}, ${result.create.events} events)`,
      );
      console.log(
        `streamed import over HTTP: ${(ms / 1000).toFixed(1)} s (${(size / 1024 / 1024 / (ms / 1000)).toFixed(0)} MB/s), peak memory growth ${mb(peak - base)} (bundle / growth: ${(size / (peak - base)).toFixed(0)}x)`,
      );
      if (kept.length)
        console.log(`heap after a full GC during the import: ${mb(Math.min(...kept))} to ${mb(Math.max(...kept))} (flat: nothing grows with the bundle)`);
      return peak - base;
    } finally {
      await studio.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (!process.argv.includes('--import-only')) await main();
const importPeak = await importBench();
// D-96's bound: an import's memory does not grow with the bundle's events and files.
if (importPeak > 256 * 1024 * 1024) process.exitCode = 1;
