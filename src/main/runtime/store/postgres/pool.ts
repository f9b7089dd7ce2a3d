// The PostgreSQL memory store's connection pool: opened, guarded against connection errors
// that would end the process, and the schema migrated (once, under an advisory lock). Errors
// never carry the DSN's password (dsn.ts).
import pg from 'pg';
import type { LeaseOptions } from './taskStore.ts';
import { migrate } from './migrations.ts';
import { redactDsn, scrub } from './dsn.ts';

export interface PostgresStoreOptions {
  dsn: string;
  /** Schema holding the tables (default `public`). */
  schema?: string;
  /** Pool size (default 10). */
  poolMax?: number;
  /** This process's replica id (default host-pid-random). */
  replica?: string;
  /** Task lease length (default 15 s). */
  leaseMs?: number;
  lease?: Pick<LeaseOptions, 'onCancelRequested' | 'onReaped' | 'log'>;
}

/** A connection problem, its message without the DSN's password. */
export class PostgresStoreError extends Error {
  override readonly name = 'PostgresStoreError';
}

/** A pool on `o.dsn` with the schema migrated, or PostgresStoreError. */
export async function openPool(o: PostgresStoreOptions): Promise<{ pool: pg.Pool; schema: string }> {
  const schema = o.schema ?? 'public';
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) throw new PostgresStoreError(`POSTGRES_SCHEMA '${schema}' is not a plain identifier (letters, digits, _)`);
  const pool = new pg.Pool({ connectionString: o.dsn, max: o.poolMax ?? 10, connectionTimeoutMillis: 5_000, application_name: 'agent-studio-runtime' });
  // An idle client that errors (the server restarted) must not end the process.
  pool.on('error', (err) => o.lease?.log?.warn({ err: scrub(err.message, o.dsn) }, 'PostgreSQL connection lost; the pool reconnects'));
  // Nor one checked out (a transaction, a checkpoint write) whose connection drops: node-postgres
  // emits 'error' on it besides failing its query, and an 'error' nobody listens to is thrown.
  // The query's own failure is what the caller sees (store/guard.ts); the pool drops the client.
  pool.on('connect', (client) => client.on('error', () => undefined));
  try {
    await migrate(pool, schema);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new PostgresStoreError(`cannot open the PostgreSQL memory store at ${redactDsn(o.dsn)}: ${scrub((err as Error).message, o.dsn)}`);
  }
  return { pool, schema };
}
