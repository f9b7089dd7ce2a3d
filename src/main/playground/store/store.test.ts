import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { newRunId, newSessionId } from '../ids.ts';
import { insertTestRun } from './test-support.ts';
import { BlobStore } from './blobs.ts';
import { openDatabase, StoreVersionError } from './db.ts';
import { MIGRATIONS, SUPPORTED_SCHEMA_VERSION } from './migrations.ts';
import { decodeCursor, PlaygroundStore } from './store.ts';

const dirs: string[] = [];
function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'pg-store-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

const addRun = (store: PlaygroundStore, sessionId: string, status: 'queued' | 'completed' = 'completed') =>
  insertTestRun(store, sessionId, { status, input_parts: [{ kind: 'text', text: 'hi' }] });

describe('Playground database', () => {
  it('applies the numbered migrations once, records a schema version with hashes, and uses WAL', () => {
    const file = path.join(tmp(), 'p.sqlite');
    const db = openDatabase(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    const rows = db.prepare('SELECT version, sha256 FROM schema_version').all() as { version: number; sha256: string }[];
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    expect(rows[0].sha256).toMatch(/^[0-9a-f]{64}$/);
    db.close();
    const again = openDatabase(file); // idempotent
    expect(new PlaygroundStore(again).schemaVersion).toBe(SUPPORTED_SCHEMA_VERSION);
    again.close();
  });

  it('refuses a database whose applied migration was edited', () => {
    const file = path.join(tmp(), 'p.sqlite');
    openDatabase(file).close();
    const edited = MIGRATIONS.map((m) => ({ ...m, sql: `${m.sql}\n-- edited` }));
    expect(() => openDatabase(file, edited)).toThrow(StoreVersionError);
  });

  it('leaves a database with a newer schema unmodified and says so', () => {
    const file = path.join(tmp(), 'p.sqlite');
    openDatabase(file).close();
    const raw = new Database(file);
    raw.prepare("INSERT INTO schema_version (version, name, sha256, applied_at) VALUES (99, 'future', 'x', 'now')").run();
    raw.close();
    expect(() => openDatabase(file)).toThrow(/newer/);
    const check = new Database(file);
    expect((check.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number }).v).toBe(99);
    check.close();
  });
});

describe('PlaygroundStore', () => {
  it('pages sessions newest first with an opaque cursor', () => {
    const store = PlaygroundStore.open(path.join(tmp(), 'p.sqlite'));
    const ids = Array.from({ length: 5 }, (_, i) => store.insertSession(newSessionId(), `s${i}`, new Date().toISOString()).session_id);
    const first = store.listSessions({ limit: 2, before: null });
    expect(first.items.map((s) => s.title)).toEqual(['s4', 's3']);
    const before = decodeCursor(first.next_cursor!, 'ses_');
    const second = store.listSessions({ limit: 2, before });
    expect(second.items.map((s) => s.title)).toEqual(['s2', 's1']);
    const third = store.listSessions({ limit: 2, before: decodeCursor(second.next_cursor!, 'ses_') });
    expect(third.items.map((s) => s.session_id)).toEqual([ids[0]]);
    expect(third.next_cursor).toBeNull();
    expect(decodeCursor('bm9wZQ', 'ses_')).toBeNull();
    store.close();
  });

  it('counts runs and reports the last run status on a session', () => {
    const store = PlaygroundStore.open(path.join(tmp(), 'p.sqlite'));
    const s = store.insertSession(newSessionId(), 't', new Date().toISOString());
    addRun(store, s.session_id, 'completed');
    addRun(store, s.session_id, 'queued');
    const got = store.getSession(s.session_id)!;
    expect(got.run_count).toBe(2);
    expect(got.last_run_status).toBe('queued');
    expect(store.activeRunId()).toBeDefined();
    store.close();
  });

  it('deletes a session with its runs and events and reports only blobs no other session uses', () => {
    const dir = tmp();
    const store = PlaygroundStore.open(path.join(dir, 'p.sqlite'));
    const blobs = new BlobStore(path.join(dir, 'blobs'));
    const now = new Date().toISOString();
    const a = store.insertSession(newSessionId(), 'a', now).session_id;
    const b = store.insertSession(newSessionId(), 'b', now).session_id;
    const shared = blobs.put(Buffer.from('shared'));
    const own = blobs.put(Buffer.from('only a'));
    const ra = addRun(store, a);
    const rb = addRun(store, b);
    store.linkBlob(ra, shared.sha256, shared.size, now);
    store.linkBlob(ra, own.sha256, own.size, now);
    store.linkBlob(rb, shared.sha256, shared.size, now);
    store.transaction(() => store.insertEvents([{ run_id: ra, seq: 1, kind: 'run.status', body: '{}' }]));
    const { orphanBlobs } = store.deleteSession(a);
    expect(orphanBlobs).toEqual([own.sha256]);
    expect(store.getRun(ra)).toBeUndefined();
    expect(store.readEvents(ra, 0, 100, 100)).toEqual([]);
    expect(store.getRun(rb)).toBeDefined();
    store.close();
  });

  it('hands out runs with their stored JSON decoded, and writes a complete run back the same', () => {
    const store = PlaygroundStore.open(path.join(tmp(), 'p.sqlite'));
    const s = store.insertSession(newSessionId(), 't', new Date().toISOString()).session_id;
    const id = insertTestRun(store, s, { input_parts: [{ kind: 'text', text: 'hi' }], metadata: { user: 'u-1' }, changed_files: ['a.ts'] });
    store.updateRun(id, { output_parts: [{ kind: 'text', text: 'hello' }], scores: [{ evaluator: 'len', score: 1 }], code_files: { 'a.ts': 'f'.repeat(64) } });
    const run = store.getRun(id)!;
    expect(run).toMatchObject({
      input_parts: [{ kind: 'text', text: 'hi' }],
      output_parts: [{ kind: 'text', text: 'hello' }],
      scores: [{ evaluator: 'len', score: 1 }],
      metadata: { user: 'u-1' },
      changed_files: ['a.ts'],
      code_files: { 'a.ts': 'f'.repeat(64) },
      imported_from: null,
    });
    const copy = { ...run, run_id: newRunId(), imported_from: id, imported_project: 'p', imported_at: run.created_at };
    store.insertRunRecord(copy);
    expect(store.getRun(copy.run_id)).toEqual(copy);
    store.close();
  });

  it('reads stored events as wire text for replays and decoded for readers that look inside', () => {
    const store = PlaygroundStore.open(path.join(tmp(), 'p.sqlite'));
    const s = store.insertSession(newSessionId(), 't', new Date().toISOString()).session_id;
    const id = addRun(store, s);
    const body = (seq: number, kind: string) => JSON.stringify({ seq, kind });
    store.transaction(() =>
      store.insertEvents([
        { run_id: id, seq: 1, kind: 'run.status', body: body(1, 'run.status') },
        { run_id: id, seq: 2, kind: 'message.delta', body: body(2, 'message.delta') },
        { run_id: id, seq: 3, kind: 'run.status', body: '{"damaged' },
      ]),
    );
    expect(store.readEvents(id, 0, 10, 10).map((e) => e.body)).toEqual([body(1, 'run.status'), body(2, 'message.delta'), '{"damaged']);
    expect(store.readEventObjects(id, { after: 0, limit: 10, kind: 'run.status' })).toEqual([
      { seq: 1, kind: 'run.status', event: { seq: 1, kind: 'run.status' } },
      { seq: 3, kind: 'run.status', event: null },
    ]);
    expect(store.readEventObjects(id, { after: 1, limit: 1 })).toEqual([{ seq: 2, kind: 'message.delta', event: { seq: 2, kind: 'message.delta' } }]);
    expect(store.getRun(id)!.last_seq).toBe(3);
    store.close();
  });
});

describe('BlobStore', () => {
  it('stores bytes once under their sha256', () => {
    const blobs = new BlobStore(path.join(tmp(), 'blobs'));
    const a = blobs.put(Buffer.from('hello'));
    const b = blobs.put(Buffer.from('hello'));
    expect(a).toEqual(b);
    expect(a.sha256).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    expect(fs.readdirSync(blobs.dir)).toEqual([a.sha256]);
    expect(blobs.get(a.sha256).toString()).toBe('hello');
    expect(() => blobs.pathOf('../etc/passwd')).toThrow();
  });
});
