// The streamed read of a bundle (D-96) on real files and a real staging SQLite file: whatever
// the chunking of the text, blob bytes decode and hash as in one piece, events are staged in
// order, and the bundle's other keys come out as JSON.parse makes them.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BlobStore } from '../store/blobs.ts';
import { readBundleText, type ReadBundle } from './read.ts';
import { STREAMED } from './walker.ts';

const dirs: string[] = [];
const reads: ReadBundle[] = [];
afterEach(() => {
  for (const r of reads.splice(0)) r.staging.dispose();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

function store(): BlobStore {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'bundle-read-'));
  dirs.push(d);
  return new BlobStore(path.join(d, 'blobs'));
}

async function* chunked(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function read(text: string, size: number, blobs = store()): Promise<ReadBundle> {
  const r = await readBundleText(chunked(text, size), blobs);
  reads.push(r);
  return r;
}

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

describe('reading a bundle as a stream', () => {
  // 1, 2 and 0 padding characters; one file larger than a decode step (256 KiB of base64).
  const files = [Buffer.from('a'), Buffer.from('ab'), Buffer.from('abc'), crypto.randomBytes(700_001)];
  const blobs = Object.fromEntries(files.map((f) => [sha(f), { bytes_base64: f.toString('base64'), size: f.length }]));
  const events = Array.from({ length: 50 }, (_, i) => ({ seq: i + 1, run_id: 'r1', kind: 'output.delta', text: `é ${i} "quoted" \\ \u2028` }));
  const bundle = { format: 'svc.playground.bundle/1', sessions: [{ session_id: 's1', title: 'naïve ☃' }], events, blobs, source: { project: 'p' } };
  const text = JSON.stringify(bundle);

  for (const size of [1, 7, 4096, 1 << 20]) {
    it(`decodes, hashes and stages the same in chunks of ${size}`, { timeout: 60_000 }, async () => {
      const r = await read(text, size);
      expect(r.staging.problems.list).toEqual([]);
      expect(r.meta).toEqual({ format: bundle.format, sessions: bundle.sessions, events: STREAMED, blobs: STREAMED, source: bundle.source });
      for (const f of files) {
        const staged = r.staging.blob(sha(f))!;
        expect(staged.size).toBe(f.length);
        expect(fs.readFileSync(staged.file!).equals(f)).toBe(true);
      }
      r.staging.finish();
      const rows = [...r.staging.events()].flat();
      expect(rows.map((e) => JSON.parse(e.body))).toEqual(events);
    });
  }

  it('finds base64 that is not, a wrong size or hash, and a blob the store already has (not staged again)', async () => {
    const f = files[3];
    const have = store();
    have.put(files[0]);
    const bad = {
      ...blobs,
      [sha(files[1])]: { bytes_base64: 'YW=i', size: 2 },
      [sha(files[2])]: { bytes_base64: files[2].toString('base64'), size: 4 },
      [sha(f)]: { bytes_base64: Buffer.concat([f.subarray(1), Buffer.from('x')]).toString('base64'), size: f.length },
      nope: { bytes_base64: '', size: 0 },
    };
    const r = await read(JSON.stringify({ ...bundle, blobs: bad }), 4096, have);
    expect(r.staging.problems.list).toEqual([
      { path: `/blobs/${sha(files[1])}/bytes_base64`, message: 'not base64' },
      { path: `/blobs/${sha(files[2])}/size`, message: 'says 4 bytes, the content has 3' },
      { path: `/blobs/${sha(f)}`, message: 'the content does not hash to its key (sha256)' },
      { path: '/blobs/nope', message: 'a blob is keyed by its lowercase hex sha256' },
    ]);
    expect(r.staging.blob(sha(files[0]))).toEqual({ size: 1, file: null });
    // The refused blobs' staged files are removed; the one the store has was never staged.
    expect(fs.readdirSync(r.staging.dir).filter((n) => n.startsWith('blob-'))).toHaveLength(0);
  });

  it('unwraps {"bundle": <it>}', async () => {
    const r = await read(JSON.stringify({ bundle }), 100);
    expect(r.meta.format).toBe(bundle.format);
    expect(r.staging.eventCount).toBe(events.length);
  });
});
