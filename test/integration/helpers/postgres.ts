// The real PostgreSQL of this machine for the store tests: started if it is down, a fresh
// schema per test (dropped after), and a clear error when it cannot run at all.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import crypto from 'node:crypto';
import pg from 'pg';

export const TEST_DSN = process.env.TEST_POSTGRES_DSN ?? 'postgresql://postgres@127.0.0.1:5432/test';

async function reachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: TEST_DSN, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let ready: Promise<void> | null = null;

/** Resolves once PostgreSQL answers; starts the local cluster if it is down. */
export function ensurePostgres(): Promise<void> {
  ready ??= (async () => {
    if (await reachable()) return;
    const versions = fs.existsSync('/etc/postgresql') ? fs.readdirSync('/etc/postgresql') : [];
    console.log(`[postgres] not answering at ${TEST_DSN}; starting the local cluster (${versions.join(', ') || 'none found'})`);
    for (const v of versions) {
      try {
        execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', v, 'main', 'start'], { stdio: 'inherit' });
      } catch (err) {
        console.log(`[postgres] pg_ctlcluster ${v} main start failed: ${(err as Error).message}`);
      }
    }
    for (let i = 0; i < 50; i++) {
      if (await reachable()) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`PostgreSQL is needed at ${TEST_DSN} (set TEST_POSTGRES_DSN) and could not be started with pg_ctlcluster`);
  })();
  return ready;
}

/** A fresh schema name; dropSchema removes it with everything in it. */
export function newSchema(prefix = 't'): string {
  return `${prefix}_${crypto.randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DSN });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** Runs one query on the test database (for assertions on rows). */
export async function sql<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: TEST_DSN });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}
