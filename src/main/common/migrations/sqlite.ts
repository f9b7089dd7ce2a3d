// The migration runner (runner.ts) on a better-sqlite3 connection. The ledger is the table
// `schema_version` (version, name, sha256, applied_at). A ledger written before hashes were
// kept (version and applied_at only) gains the name and sha256 columns in place, and its
// rows get this build's hashes. Every transaction is BEGIN IMMEDIATE: it takes the write lock
// before reading the ledger, so two processes opening one file at once cannot both apply a
// migration (the second finds it recorded and skips it).
import type Database from 'better-sqlite3';
import { planMigrations, migrationHash, type AppliedMigration, type Migration } from './runner.ts';

/** A SQLite migration; its step runs synchronously inside the migration's transaction. */
export type SqliteMigration = Omit<Migration<Database.Database>, 'step'> & { step?: (db: Database.Database) => void };

const LEDGER = `CREATE TABLE schema_version (
  version    INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  sha256     TEXT NOT NULL,
  applied_at TEXT NOT NULL
)`;

/** The newest version recorded in the ledger (0 for a fresh file). */
export function sqliteSchemaVersion(db: Database.Database): number {
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_version').get() as { v: number | null };
  return row.v ?? 0;
}

/** Creates the ledger, or brings a ledger without hashes to the current shape. */
function ensureLedger(db: Database.Database): void {
  const columns = db.prepare("SELECT name FROM pragma_table_info('schema_version')").pluck().all() as string[];
  if (columns.length === 0) {
    db.exec(LEDGER);
    return;
  }
  if (!columns.includes('name')) db.exec('ALTER TABLE schema_version ADD COLUMN name TEXT');
  if (!columns.includes('sha256')) db.exec('ALTER TABLE schema_version ADD COLUMN sha256 TEXT');
}

/**
 * Brings the database to the newest migration; `where` names it in a refusal (for example
 * "the Playground database /path/playground.sqlite"). Returns the versions this call applied.
 * A refused database is left as it was: the ledger's transaction rolls back.
 */
export function migrateSqlite(db: Database.Database, migrations: readonly SqliteMigration[], where: string): number[] {
  const pending = db
    .transaction(() => {
      ensureLedger(db);
      const applied = db.prepare('SELECT version, sha256 FROM schema_version ORDER BY version').all() as AppliedMigration[];
      const plan = planMigrations(applied, migrations, where);
      const adopt = db.prepare('UPDATE schema_version SET name = ?, sha256 = ? WHERE version = ? AND sha256 IS NULL');
      for (const m of plan.adopt) adopt.run(m.name, migrationHash(m), m.version);
      return plan.pending;
    })
    .immediate();
  const isApplied = db.prepare('SELECT 1 FROM schema_version WHERE version = ?').pluck();
  const record = db.prepare('INSERT INTO schema_version (version, name, sha256, applied_at) VALUES (?, ?, ?, ?)');
  const done: number[] = [];
  for (const m of pending) {
    const ran = db
      .transaction(() => {
        if (isApplied.get(m.version)) return false; // another connection applied it meanwhile
        if (m.sql) db.exec(m.sql);
        m.step?.(db);
        record.run(m.version, m.name, migrationHash(m), new Date().toISOString());
        return true;
      })
      .immediate();
    if (ran) done.push(m.version);
  }
  return done;
}

/**
 * The migrations `migrateSqlite` would apply, read without writing anything (for a dry run);
 * throws the same MigrationError for a database this build must not open. A connection opened
 * read-only is enough; a file without a ledger has every migration pending.
 */
export function pendingSqlite(db: Database.Database, migrations: readonly SqliteMigration[], where: string): SqliteMigration[] {
  const columns = db.prepare("SELECT name FROM pragma_table_info('schema_version')").pluck().all() as string[];
  if (columns.length === 0) return planMigrations([], migrations, where).pending;
  const hash = columns.includes('sha256') ? 'sha256' : 'NULL AS sha256';
  const applied = db.prepare(`SELECT version, ${hash} FROM schema_version ORDER BY version`).all() as AppliedMigration[];
  return planMigrations(applied, migrations, where).pending;
}
