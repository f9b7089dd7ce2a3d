// Opens the Playground SQLite database: WAL, foreign keys, and the numbered migrations of
// migrations.ts applied by the shared runner (common/migrations/sqlite.ts).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MigrationError } from '../../common/migrations/runner.ts';
import { migrateSqlite, sqliteSchemaVersion } from '../../common/migrations/sqlite.ts';
import { MIGRATIONS, SUPPORTED_SCHEMA_VERSION, type Migration } from './migrations.ts';

export type Db = Database.Database;

/** A database this build must not open (an edited applied migration, or a newer schema). */
export { MigrationError as StoreVersionError };

/** The schema version recorded in the database (0 for a fresh file). */
export const schemaVersion = sqliteSchemaVersion;

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
    // spec 9.4: a newer schema is refused and left unmodified.
    migrateSqlite(db, migrations, `the Playground database ${path.resolve(file)}`);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

export { SUPPORTED_SCHEMA_VERSION };
