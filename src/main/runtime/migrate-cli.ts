// `agent-studio runtime migrate [--project DIR] [--data-dir DIR] [--dry-run]` (docs/deployment.md,
// "Schema upgrades"): applies the memory store's pending migrations before replicas of a new
// build roll out, with the settings a start in DIR would use (SQLite in the data dir, or
// POSTGRES_DSN / POSTGRES_SCHEMA). Prints each migration it applied; --dry-run prints the
// pending ones and changes nothing. Exit 0 when done (also when --dry-run finds some pending);
// exit 1 with one line for a bad setting, an unreachable store, or a database the shared
// runner refuses (an edited migration, or a newer database; common/migrations/runner.ts).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { parseFlags } from '../cli-args.ts';
import { MigrationError, type MigrationEntry } from '../common/migrations/runner.ts';
import { migrateSqlite, pendingSqlite } from '../common/migrations/sqlite.ts';
import { loadSettings, SettingsError, type MemoryStoreSettings } from './config.ts';
import { runtimeDataDir, sqliteStoreFile } from './store/location.ts';
import { MIGRATIONS } from './store/sqlite-migrations.ts';
import { redactDsn, scrub } from './store/postgres/dsn.ts';

/** How long to wait for a running runtime's write lock (the store's own BUSY_TIMEOUT_MS, store/sqlite.ts,
 * not imported: that module loads LangGraph, which this command does not need). */
const BUSY_TIMEOUT_MS = 5_000;

interface Outcome {
  where: string;
  /** Applied by this run, or pending for a dry run. */
  migrations: MigrationEntry[];
  newest: number;
}

export async function runMigrateCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, { project: { type: 'string' }, 'data-dir': { type: 'string' }, 'dry-run': { type: 'boolean' } });
  const projectDir = path.resolve(typeof flags.project === 'string' ? flags.project : '.');
  const dryRun = flags['dry-run'] === true;
  try {
    const store = loadSettings(projectDir, process.env).memoryStore;
    const outcome =
      store.backend === 'postgres'
        ? await onPostgres(store, dryRun)
        : onSqlite(sqliteStoreFile(runtimeDataDir(projectDir, typeof flags['data-dir'] === 'string' ? flags['data-dir'] : undefined)), dryRun);
    process.stdout.write(report(outcome, dryRun));
  } catch (err) {
    if (!(err instanceof SettingsError || err instanceof MigrationError || err instanceof StoreUnreachable)) throw err;
    process.stderr.write(`agent-studio runtime: ${err.message}\n`);
    process.exitCode = 1;
  }
}

class StoreUnreachable extends Error {}

function report({ where, migrations, newest }: Outcome, dryRun: boolean): string {
  const list = migrations.map((m) => `  ${m.version}  ${m.name}\n`).join('');
  if (migrations.length === 0) return `${where} is up to date (migration ${newest}, the newest this build knows): nothing to migrate\n`;
  if (dryRun) return `${where}: ${migrations.length} pending migration(s), not applied (--dry-run):\n${list}`;
  return `${where}: applied ${migrations.length} migration(s), now at migration ${newest}:\n${list}`;
}

function onSqlite(file: string, dryRun: boolean): Outcome {
  const where = `the memory store ${file}`;
  try {
    return sqliteOutcome(file, where, dryRun);
  } catch (err) {
    if (err instanceof MigrationError) throw err;
    throw new StoreUnreachable(`cannot migrate ${where}: ${(err as Error).message}`);
  }
}

function sqliteOutcome(file: string, where: string, dryRun: boolean): Outcome {
  const newest = MIGRATIONS.length;
  if (dryRun) {
    if (!fs.existsSync(file)) return { where, migrations: [...MIGRATIONS], newest };
    const db = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
    try {
      return { where, migrations: pendingSqlite(db, MIGRATIONS, where), newest };
    } finally {
      db.close();
    }
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file, { timeout: BUSY_TIMEOUT_MS });
  try {
    const applied = migrateSqlite(db, MIGRATIONS, where);
    return { where, migrations: MIGRATIONS.filter((m) => applied.includes(m.version)), newest };
  } finally {
    db.close();
  }
}

async function onPostgres(s: Extract<MemoryStoreSettings, { backend: 'postgres' }>, dryRun: boolean): Promise<Outcome> {
  const where = `the PostgreSQL schema "${s.schema}" at ${redactDsn(s.dsn)}`;
  // Loaded here: the PostgreSQL client and LangGraph's saver are not needed for SQLite.
  const [{ default: pg }, { pendingPostgres }, { migrate, PG_MIGRATIONS }] = await Promise.all([
    import('pg'),
    import('../common/migrations/postgres.ts'),
    import('./store/postgres/migrations.ts'),
  ]);
  const newest = PG_MIGRATIONS.length;
  const pool = new pg.Pool({ connectionString: s.dsn, max: 1, connectionTimeoutMillis: 5_000, application_name: 'agent-studio-migrate' });
  pool.on('error', () => undefined); // an idle connection lost: the next query reports it
  try {
    if (dryRun) return { where, migrations: await pendingPostgres(pool, s.schema, PG_MIGRATIONS), newest };
    const versions = await migrate(pool, s.schema);
    return { where, migrations: PG_MIGRATIONS.filter((m) => versions.includes(m.version)), newest };
  } catch (err) {
    if (err instanceof MigrationError) throw err;
    throw new StoreUnreachable(`cannot migrate ${where}: ${scrub((err as Error).message, s.dsn)}`);
  } finally {
    await pool.end().catch(() => undefined);
  }
}
