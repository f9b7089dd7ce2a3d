// The runner on real SQLite files: one transaction per migration, a ledger without hashes
// brought up to date in place, refusals that leave the file as it was.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrationHash } from './runner.ts';
import { migrateSqlite, pendingSqlite, sqliteSchemaVersion, type SqliteMigration } from './sqlite.ts';

const MIGRATIONS: SqliteMigration[] = [
  { version: 1, name: 'notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);' },
  {
    version: 2,
    name: 'note length',
    sql: 'ALTER TABLE notes ADD COLUMN length INTEGER;',
    step: (db) => void db.prepare('UPDATE notes SET length = length(text)').run(),
  },
];

let dir = '';
let file = '';
const opened: Database.Database[] = [];
const open = () => {
  const db = new Database(file);
  opened.push(db);
  return db;
};
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'migrations-'));
  file = path.join(dir, 'db.sqlite');
});
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const ledger = (db: Database.Database) => db.prepare('SELECT * FROM schema_version ORDER BY version').all();
const tables = (db: Database.Database) => db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();

describe('migrateSqlite', () => {
  it('applies each migration once and records its name and hash', () => {
    const db = open();
    expect(migrateSqlite(db, MIGRATIONS, 'the test file')).toEqual([1, 2]);
    expect(migrateSqlite(db, MIGRATIONS, 'the test file')).toEqual([]);
    expect(ledger(db)).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name, sha256: migrationHash(m), applied_at: expect.any(String) })));
    expect(sqliteSchemaVersion(db)).toBe(2);
  });

  it('runs each migration in its own transaction: a failing one leaves the earlier ones applied and nothing of itself', () => {
    const db = open();
    const failing: SqliteMigration = { version: 2, name: 'half', sql: 'CREATE TABLE half (x); CREATE TABLE notes (y);' };
    expect(() => migrateSqlite(db, [MIGRATIONS[0], failing], 'the test file')).toThrow(/table notes already exists/);
    expect(tables(db)).toEqual(['notes', 'schema_version']);
    expect(sqliteSchemaVersion(db)).toBe(1);
    // A failing step rolls back the migration's SQL with it.
    const badStep: SqliteMigration = {
      ...MIGRATIONS[1],
      step: () => {
        throw new Error('backfill failed');
      },
    };
    expect(() => migrateSqlite(db, [MIGRATIONS[0], badStep], 'the test file')).toThrow('backfill failed');
    expect(db.prepare("SELECT name FROM pragma_table_info('notes')").pluck().all()).toEqual(['id', 'text']);
    expect(migrateSqlite(db, MIGRATIONS, 'the test file')).toEqual([2]);
  });

  it('records the hashes of a ledger kept without them, then refuses an edited migration naming the file', () => {
    const db = open();
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
    db.exec(MIGRATIONS[0].sql!);
    db.prepare("INSERT INTO schema_version VALUES (1, '2026-01-01T00:00:00.000Z')").run();
    db.prepare("INSERT INTO notes (text) VALUES ('kept')").run();

    expect(migrateSqlite(db, MIGRATIONS, `the test file ${file}`)).toEqual([2]);
    expect(ledger(db)).toEqual([
      { version: 1, applied_at: '2026-01-01T00:00:00.000Z', name: 'notes', sha256: migrationHash(MIGRATIONS[0]) },
      { version: 2, applied_at: expect.any(String), name: 'note length', sha256: migrationHash(MIGRATIONS[1]) },
    ]);
    expect(db.prepare('SELECT text, length FROM notes').all()).toEqual([{ text: 'kept', length: 4 }]);

    const edited = [{ ...MIGRATIONS[0], sql: `${MIGRATIONS[0].sql} -- edited` }, MIGRATIONS[1]];
    expect(() => migrateSqlite(db, edited, `the test file ${file}`)).toThrow(`migration 1 (notes) differs from the one applied to the test file ${file}`);
  });

  it('leaves a newer database as it was, a ledger without hashes included', () => {
    const db = open();
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
    db.prepare("INSERT INTO schema_version VALUES (1, 'then'), (2, 'then'), (3, 'later')").run();
    expect(() => migrateSqlite(db, MIGRATIONS, `the test file ${file}`)).toThrow(
      `the test file ${file} has migration 3 applied, newer than this build supports`,
    );
    expect(ledger(db)).toEqual([
      { version: 1, applied_at: 'then' },
      { version: 2, applied_at: 'then' },
      { version: 3, applied_at: 'later' },
    ]);
  });
});

describe('pendingSqlite (a dry run)', () => {
  it('lists what migrateSqlite would apply on a read-only connection, for a fresh file, a ledger without hashes, and refuses the same databases', () => {
    const db = open();
    expect(pendingSqlite(db, MIGRATIONS, 'the test file').map((m) => m.version)).toEqual([1, 2]);
    db.exec('CREATE TABLE schema_version (version INTEGER PRIMARY KEY NOT NULL, applied_at TEXT NOT NULL)');
    db.exec(MIGRATIONS[0].sql!);
    db.prepare("INSERT INTO schema_version VALUES (1, 'then')").run();
    const readOnly = new Database(file, { readonly: true });
    opened.push(readOnly);
    expect(pendingSqlite(readOnly, MIGRATIONS, 'the test file').map((m) => m.version)).toEqual([2]);
    expect(ledger(db)).toEqual([{ version: 1, applied_at: 'then' }]);
    db.prepare("INSERT INTO schema_version VALUES (3, 'later')").run();
    expect(() => pendingSqlite(readOnly, MIGRATIONS, 'the test file')).toThrow('the test file has migration 3 applied, newer than this build supports');
  });
});
