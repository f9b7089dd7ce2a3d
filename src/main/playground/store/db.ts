// Opens the Playground SQLite database: WAL, foreign keys, and the numbered migrations of
// migrations.ts applied in order, one transaction each, with a schema-version table.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS, SUPPORTED_SCHEMA_VERSION, type Migration } from './migrations.ts';

export type Db = Database.Database;

export class StoreVersionError extends Error {
  override readonly name = 'StoreVersionError';
}

function hashOf(m: Migration): string {
  return crypto.createHash('sha256').update(m.sql).digest('hex');
}

/** The schema version recorded in the database (0 for a fresh file). */
export function schemaVersion(db: Db): number {
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

export function openDatabase(file: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    // WAL: readers (SSE replays, lists) never block the batched event writer.
    db.pragma('journal_mode = WAL');
    // NORMAL is durable across application crashes in WAL mode; only a power loss can
    // drop the last transactions, which for a local authoring store is acceptable.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

function migrate(db: Db, migrations: readonly Migration[]): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    applied_at TEXT NOT NULL
  )`);
  const applied = db.prepare('SELECT version, name, sha256 FROM schema_version ORDER BY version').all() as {
    version: number;
    name: string;
    sha256: string;
  }[];
  const newest = migrations[migrations.length - 1]?.version ?? 0;
  const current = applied.at(-1)?.version ?? 0;
  if (current > newest) {
    // spec 9.4: a newer schema is left unmodified.
    throw new StoreVersionError(
      `this Playground database has schema version ${current}, newer than the ${newest} this Agent Studio supports: ` +
        'use a newer Agent Studio, or another --data-dir',
    );
  }
  for (const row of applied) {
    const m = migrations.find((x) => x.version === row.version);
    if (!m || hashOf(m) !== row.sha256) {
      throw new StoreVersionError(
        `migration ${row.version} (${row.name}) differs from the one applied to this database: ` +
          'shipped migrations must never be edited; add a new numbered migration instead',
      );
    }
  }
  const record = db.prepare('INSERT INTO schema_version (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)');
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, hashOf(m), new Date().toISOString());
    })();
  }
}

export { SUPPORTED_SCHEMA_VERSION };
