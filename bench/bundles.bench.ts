// POST /bundles/export of a session whose runs reference 100 MB of files (100 distinct
// 1 MB blobs), over HTTP against the headless studio, streamed to a client that only counts
// bytes; the studio's resident memory is sampled during the export. Beside it, in the same
// run, what one would write by hand: build the whole bundle object in memory (every blob
// read and base64-encoded) and JSON.stringify it.
// Usage: node bin/run-ts.mjs bench/bundles.bench.ts
import crypto from 'node:crypto';
import fs from 'node:fs';
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

await main();
