// The migration runner (runner.ts) on a PostgreSQL schema. The ledger is the table
// `<schema>.store_migrations` (version, name, hash, applied_at). Replicas may start together:
// the whole run holds a session-level advisory lock keyed by the schema (the key is the one
// earlier builds took, so an older replica still running during an upgrade waits too), and
// each migration runs in its own transaction on that locked connection.
import crypto from 'node:crypto';
import type pg from 'pg';
import { planMigrations, migrationHash, type AppliedMigration, type Migration } from './runner.ts';

/** What a migration's code step gets: its transaction's connection. */
export interface PgMigrationContext {
  schema: string;
  /** The schema's name quoted as an identifier. */
  quotedSchema: string;
  /** Runs one statement inside the migration's transaction, under a savepoint, so that a
   * statement expected to fail (a library probing for its table) does not abort it. */
  query(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** The same connection shaped as a pool, for a library that wants one (connect/release). */
  asPool(): pg.Pool;
}

/** A PostgreSQL migration; `{schema}` in its SQL is replaced by the quoted schema name. */
export type PgMigration = Migration<PgMigrationContext>;

export const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** A stable 64-bit key for pg_advisory_lock, per schema. */
function lockKey(schema: string): string {
  return crypto.createHash('sha256').update(`agent-studio.memory-store:${schema}`).digest().readBigInt64BE(0).toString();
}

function stepContext(client: pg.PoolClient, schema: string): PgMigrationContext {
  const query = async (sql: string, params?: unknown[]) => {
    await client.query('SAVEPOINT migration_step');
    try {
      const result = await client.query(sql, params);
      await client.query('RELEASE SAVEPOINT migration_step');
      return result;
    } catch (err) {
      await client.query('ROLLBACK TO SAVEPOINT migration_step');
      throw err;
    }
  };
  const pool = { connect: async () => ({ query, release: () => undefined }) };
  return { schema, quotedSchema: quoteIdent(schema), query, asPool: () => pool as unknown as pg.Pool };
}

/** `fn` in one transaction on `client`: committed when it resolves, rolled back when it throws
 * (its error is the one thrown, also when the rollback fails on a broken connection). */
export async function inTransaction<T>(client: pg.PoolClient, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Reads the ledger, refuses a database this build must not open, records missing hashes. */
async function planOnLedger(client: pg.PoolClient, schema: string, migrations: readonly PgMigration[]) {
  const q = quoteIdent(schema);
  return inTransaction(client, async () => {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${q}.store_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, hash TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`);
    const applied = (await client.query<AppliedMigration>(`SELECT version, hash AS sha256 FROM ${q}.store_migrations ORDER BY version`)).rows;
    const plan = planMigrations(applied, migrations, `the PostgreSQL schema "${schema}"`);
    for (const m of plan.adopt)
      await client.query(`UPDATE ${q}.store_migrations SET hash = $1 WHERE version = $2 AND hash IS NULL`, [migrationHash(m), m.version]);
    return plan.pending;
  });
}

/** Brings the schema to the newest migration; returns the versions this call applied. */
export async function migratePostgres(pool: pg.Pool, schema: string, migrations: readonly PgMigration[]): Promise<number[]> {
  const q = quoteIdent(schema);
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [lockKey(schema)]);
    try {
      for (const m of await planOnLedger(client, schema, migrations)) {
        await inTransaction(client, async () => {
          if (m.sql) await client.query(m.sql.replaceAll('{schema}', q));
          await m.step?.(stepContext(client, schema));
          await client.query(`INSERT INTO ${q}.store_migrations (version, name, hash) VALUES ($1, $2, $3)`, [m.version, m.name, migrationHash(m)]);
        });
        applied.push(m.version);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [lockKey(schema)]).catch(() => undefined);
    }
  } finally {
    client.release();
  }
  return applied;
}

/**
 * The migrations `migratePostgres` would apply, read without writing anything or taking the
 * lock (for a dry run); throws the same MigrationError for a schema this build must not open.
 */
export async function pendingPostgres(pool: pg.Pool, schema: string, migrations: readonly PgMigration[]): Promise<PgMigration[]> {
  const ledger = `${quoteIdent(schema)}.store_migrations`;
  const exists = (await pool.query<{ t: string | null }>('SELECT to_regclass($1) AS t', [ledger])).rows[0]?.t;
  if (!exists) return planMigrations([], migrations, `the PostgreSQL schema "${schema}"`).pending;
  const applied = (await pool.query<AppliedMigration>(`SELECT version, hash AS sha256 FROM ${ledger} ORDER BY version`)).rows;
  return planMigrations(applied, migrations, `the PostgreSQL schema "${schema}"`).pending;
}
