// The staging area of a streamed import (D-96): while the body arrives, each event is checked
// and put in a staging SQLite file, and each blob is base64-decoded, hashed and written to a
// staging file a piece at a time, so memory stays bounded whatever the bundle's size. Nothing
// here touches the Playground store or its blob folder until the whole bundle has been
// checked; then the checked blob files are moved in (content-addressed) and the events read
// back a page at a time into the store's transaction. The staging folder is removed after.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ImportEventSchema, type BundleProblem } from '../../../shared/bundle.ts';
import type { BlobStore } from '../store/blobs.ts';
import type { BlobSection, WalkSink } from './walker.ts';

export const MAX_PROBLEMS = 200;
const SHA = /^[0-9a-f]{64}$/;
const BASE64_BODY = /^[A-Za-z0-9+/]*$/;
const BASE64_TAIL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Base64 characters decoded at a time (a multiple of 4). */
const DECODE_CHARS = 256 * 1024;
const EVENTS_PER_COMMIT = 5000;

/** A copy of a key the parser cut out of a text chunk (V8 keeps the whole chunk alive behind
 * a slice of it: a map of blob keys would hold 64 KiB per blob). */
const own = (s: string): string => Buffer.from(s, 'utf8').toString('utf8');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export const pointer = (path: readonly PropertyKey[]) => path.map((k) => `/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');

export class Problems {
  readonly list: BundleProblem[] = [];
  count = 0;
  add(path: string, message: string): void {
    this.count += 1;
    if (this.list.length < MAX_PROBLEMS) this.list.push({ path, message });
  }
  get full(): boolean {
    return this.count >= MAX_PROBLEMS;
  }
}

/** A blob of the bundle that passed its own checks (key, base64, size, sha256). */
export interface StagedBlob {
  size: number;
  /** The staged file; null when the store already had the blob. */
  file: string | null;
}

interface Writing {
  section: BlobSection;
  sha: string;
  hash: crypto.Hash;
  size: number;
  base64: boolean;
  pending: string;
  fd: number | null;
  file: string | null;
}

export class Staging implements WalkSink {
  readonly blobs: Record<BlobSection, Map<string, StagedBlob>> = { blobs: new Map(), linked_blobs: new Map() };
  /** Every key of each blob map as sent (the relation checks name them). */
  readonly keys: Record<BlobSection, Set<string>> = { blobs: new Set(), linked_blobs: new Set() };
  formatSeen: unknown = undefined;
  eventCount = 0;
  readonly db: Database.Database;
  private readonly insertEvent: Database.Statement;
  private uncommitted = 0;
  private cur: Writing | null = null;
  private counter = 0;

  private constructor(
    readonly dir: string,
    private readonly store: BlobStore,
    readonly problems: Problems,
  ) {
    this.db = new Database(path.join(dir, 'events.sqlite'));
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db
      .exec(`CREATE TABLE ev (i INTEGER PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, UNIQUE (run_id, seq));
      CREATE TABLE runs (run_id TEXT PRIMARY KEY);`);
    this.insertEvent = this.db.prepare('INSERT OR IGNORE INTO ev (i, run_id, seq, kind, body) VALUES (?, ?, ?, ?, ?)');
    this.db.exec('BEGIN');
  }

  /** A fresh staging folder beside the blob folder (the same file system: moves are renames);
   * folders left by a studio process that is gone (a crash mid-import) are removed first. */
  static open(blobs: BlobStore): Staging {
    const root = path.join(path.dirname(blobs.dir), 'import-staging');
    fs.mkdirSync(root, { recursive: true });
    for (const name of fs.readdirSync(root)) {
      const pid = Number(/^(\d+)-/.exec(name)?.[1]);
      if (pid && pid !== process.pid && !alive(pid)) fs.rmSync(path.join(root, name), { recursive: true, force: true });
    }
    return new Staging(fs.mkdtempSync(path.join(root, `${process.pid}-`)), blobs, new Problems());
  }

  dispose(): void {
    if (this.cur?.fd != null) fs.closeSync(this.cur.fd);
    if (this.db.open) this.db.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Ends the staging writes (before the checks read the events back). */
  finish(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  // ---- the walker's sink ----

  format(value: unknown): void {
    this.formatSeen = value;
  }

  event(raw: unknown, i: number): void {
    this.eventCount += 1;
    const parsed = ImportEventSchema.safeParse(raw);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) this.problems.add(`/events/${i}${pointer(issue.path)}`, issue.message);
      return;
    }
    const e = parsed.data;
    if (this.insertEvent.run(i, e.run_id, e.seq, e.kind, JSON.stringify(raw)).changes === 0)
      this.problems.add(`/events/${i}/seq`, `run '${e.run_id}' has two events with seq ${e.seq}`);
    if (++this.uncommitted >= EVENTS_PER_COMMIT) {
      this.db.exec('COMMIT');
      this.db.exec('BEGIN');
      this.uncommitted = 0;
    }
  }

  blobStart(section: BlobSection, sha: string): void {
    let file: string | null = null;
    let fd: number | null = null;
    if (SHA.test(sha) && !this.store.has(sha)) {
      file = path.join(this.dir, `blob-${(this.counter += 1)}`);
      fd = fs.openSync(file, 'w');
    }
    this.cur = { section, sha, hash: crypto.createHash('sha256'), size: 0, base64: true, pending: '', fd, file };
  }

  blobChunk(base64: string): void {
    const w = this.cur!;
    if (!w.base64) return;
    w.pending += base64;
    // Keep the last 4 characters back: the padding may only end the text.
    if (w.pending.length >= DECODE_CHARS + 4) this.decode(w, false);
  }

  blobBytesEnd(): void {
    const w = this.cur!;
    if (w.base64) this.decode(w, true);
    if (w.fd !== null) fs.closeSync(w.fd);
    w.fd = null;
  }

  private decode(w: Writing, final: boolean): void {
    const take = final ? w.pending.length : w.pending.length - 4 - ((w.pending.length - 4) % 4);
    const text = w.pending.slice(0, take);
    w.pending = w.pending.slice(take);
    if (!(final ? BASE64_TAIL : BASE64_BODY).test(text)) {
      w.base64 = false;
      w.pending = '';
      return;
    }
    const bytes = Buffer.from(text, 'base64');
    w.hash.update(bytes);
    w.size += bytes.length;
    if (w.fd !== null) fs.writeSync(w.fd, bytes);
  }

  blobEnd(section: BlobSection, key: string, fields: Record<string, unknown>, streamed: boolean): void {
    const sha = own(key);
    const w = this.cur;
    this.cur = null;
    this.keys[section].add(sha);
    this.blobs[section].delete(sha);
    const at = `/${section}${pointer([sha])}`;
    const drop = () => {
      if (w?.fd != null) fs.closeSync(w.fd);
      if (w?.file) fs.rmSync(w.file, { force: true });
    };
    if (!SHA.test(sha)) {
      this.problems.add(at, 'a blob is keyed by its lowercase hex sha256');
      return drop();
    }
    const size = fields.size;
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
      this.problems.add(`${at}/size`, 'expected the size in bytes (an integer, 0 or more)');
    if (!streamed || !w) {
      this.problems.add(`${at}/bytes_base64`, 'expected the bytes as base64 text');
      return drop();
    }
    if (!w.base64) {
      this.problems.add(`${at}/bytes_base64`, 'not base64');
      return drop();
    }
    const hash = w.hash.digest('hex');
    if (typeof size === 'number' && size !== w.size) {
      this.problems.add(`${at}/size`, `says ${String(size)} bytes, the content has ${w.size}`);
      return drop();
    }
    if (hash !== sha) {
      this.problems.add(at, 'the content does not hash to its key (sha256)');
      return drop();
    }
    this.blobs[section].set(sha, { size: w.size, file: w.file });
  }

  blobOther(section: BlobSection, sha: string): void {
    this.keys[section].add(own(sha));
    this.problems.add(`/${section}${pointer([sha])}`, 'expected an object {bytes_base64, size}');
  }

  // ---- after the checks ----

  /** A checked blob of either map. */
  blob(sha: string): StagedBlob | undefined {
    return this.blobs.blobs.get(sha) ?? this.blobs.linked_blobs.get(sha);
  }

  /** Where the bytes of a checked blob are now: its staged file, else the store's. */
  bytesPath(sha: string): string {
    const b = this.blob(sha);
    if (b?.file && fs.existsSync(b.file)) return b.file;
    return this.store.pathOf(sha);
  }

  /** Moves the checked blobs `wanted` into the store (those it lacks); answers the hashes moved. */
  moveInto(store: BlobStore, wanted: Iterable<string>): string[] {
    const moved: string[] = [];
    try {
      for (const sha of new Set(wanted)) {
        const b = this.blob(sha);
        if (!b?.file || store.has(sha)) continue;
        store.adopt(b.file, sha);
        moved.push(sha);
      }
    } catch (err) {
      for (const sha of moved) store.delete(sha);
      throw err;
    }
    return moved;
  }

  /** The staged events in bundle order, a page at a time. */
  *events(page = 1000): Generator<{ run_id: string; seq: number; kind: string; body: string }[]> {
    const stmt = this.db.prepare<[number, number], { i: number; run_id: string; seq: number; kind: string; body: string }>(
      'SELECT i, run_id, seq, kind, body FROM ev WHERE i > ? ORDER BY i LIMIT ?',
    );
    let after = -1;
    for (;;) {
      const rows = stmt.all(after, page);
      if (rows.length) yield rows;
      if (rows.length < page) return;
      after = rows[rows.length - 1].i;
    }
  }
}
