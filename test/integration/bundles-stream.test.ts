// Streamed bundles over real HTTP, real SQLite (docs/playground-api.md, "POST /bundles/import";
// D-96, D-97): a round trip of the optional keys (a run's linked blob, a file beside a dataset,
// a fork's origin, an edited Continue, a conversation branch); unknown keys ignored and the
// D-97 keys optional; a bundle whose last event or last blob is bad stores nothing; a body
// over the limit, garbage, or not an object gets its documented error.
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bundle, ImportResult } from '../../src/shared/bundle.ts';
import type { RunDetail, Session } from '../../src/shared/playground.ts';
import { copyExample, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

const TWO = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';
const RECORDED = Buffer.from(JSON.stringify({ request: { model: 'gpt-test', messages: [{ role: 'user', content: TWO }] }, response: { content: 'ok' } }));
const ATTACHED = Buffer.from('%PDF-1.4 an invoice beside the dataset\n');
const EDIT = {
  checkpoint_id: 'ckpt-paused',
  node: 'router',
  edited_checkpoint_id: 'ckpt-edited',
  patch: [{ op: 'replace', path: '/intents', value: ['refund'] }],
};
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

type Ckpt = { checkpoint_id: string; writes: Record<string, string[]>; next: string[] };

describe('streamed bundles with the optional keys of D-97', () => {
  let a: TestStudio;
  let b: TestStudio;
  let aDir: string;
  let bDir: string;
  let text: string;
  const ids = { session: '', run: '', forkSession: '', forkRun: '', branchSession: '', branchRun: '' };

  const post = async (t: TestStudio, p: string, body: string | Buffer, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.api}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const raw = await res.text();
    return { status: res.status, body: raw ? JSON.parse(raw) : null };
  };
  const sessionCount = async (t: TestStudio) => (await t.call('GET', '/sessions?limit=200')).body.items.length as number;
  const blobFiles = (t: TestStudio) => fs.readdirSync(path.join(t.dataDir, 'blobs')).sort();
  const staged = (t: TestStudio) => {
    const dir = path.join(t.dataDir, 'import-staging');
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  beforeAll(async () => {
    aDir = copyExample('bundle-stream-a');
    bDir = copyExample('bundle-stream-b');
    a = await startTestStudio({ projectDir: aDir });
    await a.studio.runtime.waitReady(60_000);
    b = await startTestStudio({ projectDir: bDir, runtimeCommand: false });
    ids.session = (await a.call('POST', '/sessions', { title: 'orders' })).body.session_id;
    ids.run = (await a.call('POST', `/sessions/${ids.session}/runs`, { parts: [{ kind: 'text', text: TWO }] })).body.run_id;
    expect((await waitForRun(a, ids.run)).status).toBe('completed');
    // A fork of it (re-run with an edit after router) and a branch of its turn, through the API.
    const afterRouter = ((await a.call('GET', `/runs/${ids.run}/checkpoints`)).body.items as Ckpt[]).find((c) => c.writes.router)!;
    const fork = await a.call('POST', `/runs/${ids.run}/fork`, { checkpoint_id: afterRouter.checkpoint_id, values: { intents: ['order_status'] } });
    expect(fork.status).toBe(202);
    const forked = await waitForRun(a, fork.body.run_id);
    [ids.forkRun, ids.forkSession] = [forked.run_id, forked.session_id];
    const branch = await a.call('POST', `/runs/${ids.run}/branch`, { parts: [{ kind: 'text', text: 'Where is my order ORD-23456?' }] });
    expect(branch.status).toBe(202);
    const branched = await waitForRun(a, branch.body.run_id);
    [ids.branchRun, ids.branchSession] = [branched.run_id, branched.session_id];
    // A recorded call's body as the recorder keeps it (a blob linked to the run), and the edit
    // a Continue with values records (D-70): written into the studio's own store.
    fs.writeFileSync(path.join(a.dataDir, 'blobs', sha256(RECORDED)), RECORDED);
    const db = new Database(path.join(a.dataDir, 'playground.sqlite'));
    db.prepare('INSERT OR IGNORE INTO blobs (sha256, size, created_at) VALUES (?, ?, ?)').run(sha256(RECORDED), RECORDED.length, new Date().toISOString());
    db.prepare('INSERT INTO run_blobs (run_id, sha256) VALUES (?, ?)').run(ids.run, sha256(RECORDED));
    db.prepare('UPDATE runs SET edited_state = ? WHERE run_id = ?').run(JSON.stringify(EDIT), ids.run);
    db.close();
    // A file beside the project's dataset.
    fs.mkdirSync(path.join(aDir, 'evals', 'support.files', 'invoices'), { recursive: true });
    fs.writeFileSync(path.join(aDir, 'evals', 'support.files', 'invoices', 'inv-1.pdf'), ATTACHED);
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const dir of [aDir, bDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips linked blobs, files beside datasets, fork, edit and branch origins', async () => {
    const res = await fetch(`${a.api}/bundles/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_ids: [ids.session, ids.forkSession, ids.branchSession], datasets: ['support'] }),
    });
    text = await res.text();
    expect(res.status).toBe(200);
    const bundle = JSON.parse(text) as Bundle;
    const run = bundle.runs.find((r) => r.run_id === ids.run)!;
    expect(run.linked_blobs).toEqual([sha256(RECORDED)]);
    expect(run.edit).toEqual(EDIT);
    expect(bundle.runs.find((r) => r.run_id === ids.forkRun)!.fork).toMatchObject({ run_id: ids.run, session_id: ids.session, node: 'router' });
    expect(bundle.sessions.find((s) => s.session_id === ids.branchSession)!.branch_of).toEqual({
      session_id: ids.session,
      run_id: ids.run,
      root_session_id: ids.session,
    });
    expect(bundle.dataset_files).toEqual([{ dataset: 'support', path: 'support.files/invoices/inv-1.pdf', sha256: sha256(ATTACHED), size: ATTACHED.length }]);
    expect(Object.keys(bundle.linked_blobs!).sort()).toEqual([sha256(RECORDED), sha256(ATTACHED)].sort());
    // The code snapshot's blobs stay home (the bundle carries the code's hashes only).
    for (const sha of Object.values(run.code_files ?? {})) expect(bundle.linked_blobs![sha]).toBeUndefined();

    const imported = await post(b, '/bundles/import', text);
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const { mapping, dataset_files } = imported.body as ImportResult;
    expect(dataset_files).toEqual({ new: 1, identical: 0 });
    const [run2, fork2] = [mapping.runs[ids.run], mapping.runs[ids.forkRun]];
    expect((await b.call<RunDetail>('GET', `/runs/${run2}`)).body.edit).toEqual(EDIT);
    expect((await b.call<RunDetail>('GET', `/runs/${fork2}`)).body.fork).toMatchObject({
      run_id: run2,
      session_id: mapping.sessions[ids.session],
      node: 'router',
    });
    expect((await b.call<Session>('GET', `/sessions/${mapping.sessions[ids.forkSession]}`)).body.forked_from_run_id).toBe(run2);
    expect((await b.call<Session>('GET', `/sessions/${mapping.sessions[ids.branchSession]}`)).body.branch_of).toEqual({
      session_id: mapping.sessions[ids.session],
      run_id: run2,
      root_session_id: mapping.sessions[ids.session],
    });
    // The branch's transcript begins with the origin's turns before the edited one (none here)
    // and is its own edited turn.
    const turns = (await b.call('GET', `/sessions/${mapping.sessions[ids.branchSession]}/transcript`)).body.items as { run_id: string }[];
    expect(turns.map((t) => t.run_id)).toEqual([mapping.runs[ids.branchRun]]);
    expect(fs.readFileSync(path.join(b.dataDir, 'blobs', sha256(RECORDED))).equals(RECORDED)).toBe(true);
    expect(fs.readFileSync(path.join(bDir, 'evals', 'support.files', 'invoices', 'inv-1.pdf')).equals(ATTACHED)).toBe(true);
    expect(staged(b)).toEqual([]);
    // Again: the file is there with the same bytes, nothing written.
    const again = await post(b, '/bundles/import', text);
    expect(again.body.dataset_files).toEqual({ new: 0, identical: 1 });
  });

  it('ignores keys it does not know; the keys of D-97 are optional', async () => {
    const bundle = JSON.parse(text) as Record<string, unknown> & Bundle;
    const future = { ...bundle, recordings_v9: { calls: [{ deep: { deeper: [1, 2, 3] } }] }, runs: bundle.runs.map((r) => ({ ...r, replayed_from: 'x' })) };
    expect((await post(b, '/bundles/import', JSON.stringify(future))).status).toBe(201);
    // What an importer that does not know them keeps: the rest is a whole bundle.
    const older = {
      ...bundle,
      sessions: bundle.sessions.map(({ branch_of: _, ...s }) => s),
      runs: bundle.runs.map(({ linked_blobs: _l, fork: _f, edit: _e, ...r }) => r),
    } as Record<string, unknown>;
    delete older.linked_blobs;
    delete older.dataset_files;
    const res = await post(b, '/bundles/import', JSON.stringify({ bundle: older }));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await b.call<RunDetail>('GET', `/runs/${(res.body as ImportResult).mapping.runs[ids.forkRun]}`)).body.fork).toBeNull();
  });

  it('a bundle whose last event or last blob is bad stores nothing', async () => {
    const before = { sessions: await sessionCount(b), blobs: blobFiles(b) };
    const file = crypto.randomBytes(3 * 1024 * 1024);
    const part = { kind: 'file', source: 'inline', sha256: sha256(file), size: file.length, name: 'big.bin' };
    const runRow = {
      run_id: 'r1',
      session_id: 's1',
      parent_run_id: null,
      origin: 'send',
      status: 'completed',
      reason: null,
      created_at: 't',
      started_at: 't',
      ended_at: 't',
      input_parts: [part],
      output_parts: [],
      scores: [],
      metadata: {},
      changed_files: [],
      revision: null,
    };
    const events = Array.from({ length: 30_000 }, (_, i) =>
      JSON.stringify({ seq: i + 1, run_id: 'r1', ts: 't', kind: 'output.delta', text: `token ${i} `.repeat(4) }),
    );
    const body = (lastEvent: string, bytes: Buffer) =>
      `{"format":"svc.playground.bundle/1","sessions":[{"session_id":"s1","title":"late","created_at":"t","updated_at":"t"}],"runs":[${JSON.stringify(runRow)}],` +
      `"events":[${[...events, lastEvent].join(',')}],"blobs":{"${sha256(file)}":{"bytes_base64":"${bytes.toString('base64')}","size":${file.length}}}}`;
    const good = JSON.stringify({ seq: 30_001, run_id: 'r1', ts: 't', kind: 'run.status', status: 'completed' });
    const badEvent = await post(b, '/bundles/import', body(JSON.stringify({ seq: 30_001, run_id: 'r1', kind: 'run.unknown' }), file));
    expect(badEvent.status).toBe(400);
    expect(badEvent.body.detail.error).toBe('invalid_bundle');
    expect(badEvent.body.detail.problems.map((p: { path: string }) => p.path)).toEqual(['/events/30000/kind']);
    const damaged = Buffer.from(file);
    damaged[damaged.length - 1] ^= 1;
    const badBlob = await post(b, '/bundles/import', body(good, damaged));
    expect(badBlob.status).toBe(400);
    expect(badBlob.body.detail.problems).toEqual([{ path: `/blobs/${sha256(file)}`, message: 'the content does not hash to its key (sha256)' }]);
    const twice = await post(b, '/bundles/import', body(JSON.stringify({ seq: 7, run_id: 'r1', kind: 'trace' }), file));
    expect(twice.body.detail.problems.map((p: { path: string }) => p.path)).toEqual(['/events/30000/seq']);
    expect({ sessions: await sessionCount(b), blobs: blobFiles(b) }).toEqual(before);
    expect(staged(b)).toEqual([]);
    // The same bundle, whole, gzip-encoded: imported, every event in the store.
    const ok = await post(b, '/bundles/import', zlib.gzipSync(body(good, file)), { 'content-encoding': 'gzip' });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.create.events).toBe(30_001);
    expect((await b.call<RunDetail>('GET', `/runs/${ok.body.mapping.runs.r1}`)).body.last_seq).toBe(30_001);
  });

  it('answers a body over the limit, garbage, and a body that is no bundle with their documented errors', async () => {
    // A declared length over 2 GB is refused before the body is read.
    const tooLarge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        `${b.api}/bundles/import`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(3 * 1024 ** 3) } },
        (res) => {
          let data = '';
          res.setEncoding('utf8');
          res.on('data', (c) => (data += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
        },
      );
      req.on('error', reject);
      req.write('{"format":"svc.playground.bundle/1","events":[');
    });
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.body).detail).toMatchObject({ error: 'payload_too_large', message: expect.stringContaining('2gb') });
    const garbage = await post(b, '/bundles/import', '{"format":"svc.playground.bundle/1","sessions":[{]');
    expect(garbage.status).toBe(400);
    expect(garbage.body.detail).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('not valid JSON') });
    const cut = await post(b, '/bundles/import', '{"format":"svc.playground.bundle/1","sessions":[');
    expect(cut.body.detail).toMatchObject({ error: 'invalid_request' });
    const array = await post(b, '/bundles/import', '[1,2,3]');
    expect(array.body.detail).toMatchObject({ error: 'invalid_bundle', problems: [{ path: '', message: 'expected an object' }] });
    // A wrong format stops the reading at once.
    const wrong = await post(b, '/bundles/import', `{"format":"svc.playground.bundle/2","events":[${'{"x":1},'.repeat(1000)}{}]}`);
    expect(wrong.body.detail).toMatchObject({ error: 'unsupported_bundle_format', supported: ['svc.playground.bundle/1'] });
    const deep = await post(b, '/bundles/import', `{"format":"svc.playground.bundle/1","x":${'['.repeat(100)}${']'.repeat(100)}}`);
    expect(deep.body.detail).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('deeper than 64') });
    expect((await post(b, '/bundles/import', '{}', { 'content-type': 'text/plain' })).status).toBe(415);
    expect(staged(b)).toEqual([]);
  });
});
