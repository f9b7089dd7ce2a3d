// Bundles over real HTTP (docs/playground-api.md): export from one studio, import into a
// second one with a fresh data dir; everything intact under new ids; deterministic; metadata
// redacted and the reserved key never exported; bad bundles rejected with nothing written;
// a newer local database refused with 409.
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bundle, ImportPlan, ImportResult } from '../../src/shared/bundle.ts';
import type { RunDetail, Session } from '../../src/shared/playground.ts';
import { startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

const FILE = Buffer.from('invoice #42, paid\n');

describe('bundles', () => {
  let a: TestStudio;
  let b: TestStudio;
  let session: string;
  let runs: RunDetail[];

  const exportText = async (body: unknown) => {
    const res = await fetch(`${a.api}/bundles/export`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, headers: res.headers, text: await res.text() };
  };
  const sessionCount = async (t: TestStudio) => (await t.call('GET', '/sessions')).body.items.length as number;
  const blobFiles = (t: TestStudio) =>
    fs
      .readdirSync(path.join(t.dataDir, 'blobs'))
      .filter((f) => !f.endsWith('.tmp'))
      .sort();

  beforeAll(async () => {
    a = await startTestStudio();
    await a.studio.runtime.waitReady(60_000);
    b = await startTestStudio({ runtimeCommand: false });
    session = (await a.call('POST', '/sessions', { title: 'Refund with an invoice' })).body.session_id;
    const first = await a.call('POST', `/sessions/${session}/runs`, {
      parts: [
        { kind: 'text', text: 'I want a refund for order ORD-12345' },
        { kind: 'data', data: { schema: 'support.ticket/1', topic: 'refund', orderId: 'ORD-12345' } },
        { kind: 'file', name: 'invoice.txt', mime_type: 'text/plain', bytes_base64: FILE.toString('base64') },
      ],
      metadata: { userId: 'alice@example.com', agentId: 'desk-7', 'svc.playground': { capture_token: 'never-exported' } },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    const one = await waitForRun(a, first.body.run_id);
    const again = await a.call('POST', `/runs/${one.run_id}/rerun`, {});
    const two = await waitForRun(a, again.body.run_id);
    runs = [one, two];
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('exports a session with its runs, events and files, byte-identical twice', async () => {
    const one = await exportText({ session_ids: [session], run_ids: [] });
    expect(one.status).toBe(200);
    expect(one.headers.get('content-disposition')).toContain('.agentbundle.json');
    const two = await exportText({ session_ids: [session] });
    expect(two.text).toBe(one.text);
    const bundle = JSON.parse(one.text) as Bundle;
    expect(bundle.format).toBe('svc.playground.bundle/1');
    expect(Object.keys(bundle).slice(0, 5)).toEqual(['format', 'sessions', 'runs', 'events', 'blobs']);
    expect(bundle.sessions).toEqual([expect.objectContaining({ session_id: session, title: 'Refund with an invoice' })]);
    expect(bundle.runs.map((r) => r.run_id)).toEqual(runs.map((r) => r.run_id));
    // The rerun keeps its parent (in the bundle); outputs and scores as stored.
    expect(bundle.runs[1]).toMatchObject({ origin: 'rerun', parent_run_id: runs[0].run_id, output_parts: runs[1].output_parts, scores: runs[1].scores });
    // Every event of each run, seq unchanged.
    for (const r of runs)
      expect(bundle.events.filter((e) => e.run_id === r.run_id).map((e) => e.seq)).toEqual(Array.from({ length: r.last_seq }, (_, i) => i + 1));
    // The file the runs referenced, and nothing else.
    const sha = (runs[0].input_parts[2] as { sha256: string }).sha256;
    expect(Object.keys(bundle.blobs)).toEqual([sha]);
    expect(Buffer.from(bundle.blobs[sha].bytes_base64, 'base64').equals(FILE)).toBe(true);
    // Beyond the spec: the code the runs ran and the contracts their data named.
    expect(bundle.runs[0].code_fingerprint).toBe(runs[0].code_fingerprint);
    expect(bundle.input_contracts?.map((c) => c.schema)).toEqual(['support.ticket/1']);
    expect(bundle.source.project).toBe('support-desk');
  });

  it('redacts user metadata everywhere, keeps its keys, and never exports the reserved key', async () => {
    const { text } = await exportText({ session_ids: [session] });
    const bundle = JSON.parse(text) as Bundle;
    expect(bundle.runs[0].metadata).toEqual({ agentId: '[redacted]', userId: '[redacted]' });
    expect(text).not.toContain('alice@example.com');
    expect(text).not.toContain('desk-7');
    expect(text).not.toContain('"svc.playground"');
    expect(text).not.toContain('capture_token');
    // The exporting machine's A2A ids are not in it either (phase details and traces name them).
    for (const r of runs) {
      expect(r.context_id).toBeTruthy();
      expect(text).not.toContain(r.context_id!);
      expect(text).not.toContain(r.task_id!);
    }
  });

  it('a run brings its session; unknown ids are a 404 naming them; an empty selection is a 400', async () => {
    const only = JSON.parse((await exportText({ run_ids: [runs[1].run_id] })).text) as Bundle;
    expect(only.sessions.map((s) => s.session_id)).toEqual([session]);
    expect(only.runs).toHaveLength(1);
    expect(only.runs[0].parent_run_id).toBeNull(); // its parent is not in the bundle
    const missing = await a.call('POST', '/bundles/export', { session_ids: ['ses_nope'], run_ids: [runs[0].run_id, 'run_nope'] });
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toMatchObject({ error: 'not_found', session_ids: ['ses_nope'], run_ids: ['run_nope'] });
    expect((await a.call('POST', '/bundles/export', {})).status).toBe(400);
  });

  it('a dry run answers the plan and writes nothing', async () => {
    // The studio keeps its project's files as blobs from the start (a run's code); none more.
    const before = blobFiles(b);
    const bundle = JSON.parse((await exportText({ session_ids: [session] })).text);
    const plan = await b.call<ImportPlan>('POST', '/bundles/import?dry_run=true', { bundle });
    expect(plan.status).toBe(200);
    expect(plan.body).toMatchObject({
      dry_run: true,
      project: 'support-desk',
      create: { sessions: 1, runs: 2, events: bundle.events.length },
      blobs: { new: 1, already_stored: 0, bytes_new: FILE.length },
    });
    expect(plan.body.redacted_metadata_keys).toEqual(['agentId', 'userId']);
    expect(await sessionCount(b)).toBe(0);
    expect(blobFiles(b)).toEqual(before);
  });

  it('imports into a fresh studio: new ids, every run, event and file intact; twice gives two copies', async () => {
    const before = blobFiles(b);
    const text = (await exportText({ session_ids: [session] })).text;
    const res = await b.call<ImportResult>('POST', '/bundles/import', text);
    expect(res.status).toBe(201);
    const { mapping } = res.body;
    expect(Object.keys(mapping.sessions)).toEqual([session]);
    expect(Object.keys(mapping.runs).sort()).toEqual(runs.map((r) => r.run_id).sort());
    for (const r of runs) {
      const newId = mapping.runs[r.run_id];
      expect(newId).not.toBe(r.run_id);
      const got = (await b.call<RunDetail>('GET', `/runs/${newId}`)).body;
      expect(got).toMatchObject({
        session_id: mapping.sessions[session],
        status: r.status,
        reason: r.reason,
        origin: r.origin,
        output_parts: r.output_parts,
        scores: r.scores,
        input_parts: r.input_parts,
        last_seq: r.last_seq,
      });
      expect(got.imported).toMatchObject({ from_run_id: r.run_id, project: 'support-desk' });
      // Events replay with the same seq, kinds and payloads, under the new run id.
      const original = await (await fetch(`${a.api}/runs/${r.run_id}/events`)).text();
      const copy = await (await fetch(`${b.api}/runs/${newId}/events`)).text();
      const strip = (sse: string, id: string) =>
        sse
          .replaceAll(id, 'RUN')
          .replace(/"(userId|agentId|user_id|context_id|task_id)":"[^"]*",?/g, '')
          .replace(/,}/g, '}');
      expect(strip(copy, newId)).toBe(strip(original, r.run_id));
    }
    expect((await b.call<RunDetail>('GET', `/runs/${mapping.runs[runs[1].run_id]}`)).body.parent_run_id).toBe(mapping.runs[runs[0].run_id]);
    // The session says it came in a bundle (the sidebar marks it); the original does not.
    const imported = (await b.call<Session>('GET', `/sessions/${mapping.sessions[session]}`)).body;
    expect(imported).toMatchObject({ imported_project: 'support-desk', imported_at: expect.any(String) });
    expect((await a.call<Session>('GET', `/sessions/${session}`)).body).toMatchObject({ imported_at: null, imported_project: null });
    const sha = (runs[0].input_parts[2] as { sha256: string }).sha256;
    const bytes = Buffer.from(await (await fetch(`${b.api}/blobs/${sha}`)).arrayBuffer());
    expect(bytes.equals(FILE)).toBe(true);

    const again = await b.call<ImportResult>('POST', '/bundles/import', text);
    expect(again.status).toBe(201);
    expect(again.body.mapping.sessions[session]).not.toBe(mapping.sessions[session]);
    expect(again.body.blobs).toMatchObject({ new: 0, already_stored: 1 });
    expect(await sessionCount(b)).toBe(2);
    expect(blobFiles(b).filter((f) => !before.includes(f))).toEqual([sha]); // stored once
  });

  it('rejects a damaged bundle with every problem and its path, and writes nothing', async () => {
    const good = JSON.parse((await exportText({ session_ids: [session] })).text) as Bundle;
    const sha = Object.keys(good.blobs)[0];
    const clone = () => JSON.parse(JSON.stringify(good)) as Bundle;
    const before = { sessions: await sessionCount(b), blobs: blobFiles(b) };
    const cases: [string, (x: Bundle) => void, string][] = [
      ['wrong hash', (x) => (x.blobs[sha].bytes_base64 = Buffer.from('invoice #43, paid\n').toString('base64')), `/blobs/${sha}`],
      ['wrong size', (x) => (x.blobs[sha].size += 1), `/blobs/${sha}/size`],
      ['dangling run', (x) => (x.runs[0].session_id = 'ses_elsewhere'), '/runs/0/session_id'],
      ['dangling blob', (x) => delete x.blobs[sha], '/runs/0/input_parts/2/sha256'],
      ['dangling event', (x) => (x.events[3].run_id = 'run_gone'), '/events/3/run_id'],
      ['dangling parent', (x) => (x.runs[1].parent_run_id = 'run_gone'), '/runs/1/parent_run_id'],
      ['bad shape', (x) => ((x.runs[0] as unknown as { status: string }).status = 'sleeping'), '/runs/0/status'],
      ['data part without data', (x) => (x.runs[0].output_parts = [{ kind: 'data' } as never]), '/runs/0/output_parts/0/data'],
      ['code file not a hash', (x) => (x.runs[0].code_files = { 'src/graph.ts': 'x' }), '/runs/0/code_files/src~1graph.ts'],
      ['own ancestor', (x) => (x.runs[1].parent_run_id = x.runs[1].run_id), '/runs/1/parent_run_id'],
    ];
    for (const [name, damage, where] of cases) {
      const bad = clone();
      damage(bad);
      const res = await b.call('POST', '/bundles/import', { bundle: bad });
      expect(res.status, name).toBe(400);
      expect(res.body.detail.error, name).toBe('invalid_bundle');
      expect(
        res.body.detail.problems.map((p: { path: string }) => p.path),
        name,
      ).toContain(where);
    }
    const unknown = await b.call('POST', '/bundles/import', { ...clone(), format: 'svc.playground.bundle/2' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail).toMatchObject({ error: 'unsupported_bundle_format', supported: ['svc.playground.bundle/1'] });
    expect({ sessions: await sessionCount(b), blobs: blobFiles(b) }).toEqual(before);
  });

  it('refuses to import into a database newer than this build (409), leaving it unmodified', async () => {
    const c = await startTestStudio({ runtimeCommand: false });
    try {
      const file = path.join(c.dataDir, 'playground.sqlite');
      const db = new Database(file);
      db.prepare('INSERT INTO schema_version (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)').run(
        999,
        'from the future',
        'x'.repeat(64),
        new Date().toISOString(),
      );
      db.close();
      const blobsBefore = blobFiles(c);
      const text = (await exportText({ session_ids: [session] })).text;
      const res = await c.call('POST', '/bundles/import', text);
      expect(res.status).toBe(409);
      expect(res.body.detail).toMatchObject({ error: 'unsupported_database_version', database_version: 999 });
      expect(await sessionCount(c)).toBe(0);
      expect(blobFiles(c)).toEqual(blobsBefore);
    } finally {
      await c.close();
    }
  });
});
