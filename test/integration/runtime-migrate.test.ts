// `agent-studio runtime migrate [--dry-run]` as an operator runs it before rolling replicas of a
// new build (docs/deployment.md, "Schema upgrades"): --dry-run lists the pending migrations and
// changes nothing, migrate applies them and says which, the runtime then starts with nothing
// left to apply, and a database the runner refuses is one line and exit 1. SQLite in a temp
// data dir; PostgreSQL in a fresh schema of its own (dropped after).
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateSqlite } from '../../src/main/common/migrations/sqlite.ts';
import { MIGRATIONS } from '../../src/main/runtime/store/sqlite-migrations.ts';
import { migrate, PG_MIGRATIONS } from '../../src/main/runtime/store/postgres/migrations.ts';
import { runRuntimeCli } from './helpers/cli-process.ts';
import { EXAMPLE, tempDir } from './helpers/runtime.ts';
import { dropSchema, ensurePostgres, newSchema, sql, TEST_DSN } from './helpers/postgres.ts';

/** Runs `agent-studio runtime migrate ARGS` to its end. */
async function migrateCli(args: string[], env: Record<string, string> = {}) {
  const p = runRuntimeCli(['migrate', '--project', EXAMPLE, ...args], env);
  const { code } = await p.exited;
  return { code, out: p.out(), err: p.err() };
}

/** Starts the runtime, waits for its ready line, stops it. */
async function startAndStop(args: string[], env: Record<string, string> = {}) {
  const p = runRuntimeCli(['--project', EXAMPLE, '--port', '0', ...args], env);
  try {
    await p.ready;
  } finally {
    p.kill();
    await p.exited;
  }
}

const pendingLines = (from: number, all: readonly { version: number; name: string }[]) =>
  all
    .slice(from)
    .map((m) => `  ${m.version}  ${m.name}\n`)
    .join('');

describe('runtime migrate on SQLite', () => {
  const dataDir = tempDir('migrate-sqlite');
  const file = path.join(dataDir, 'memory.sqlite');
  const ledger = () => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare('SELECT version, sha256, applied_at FROM schema_version ORDER BY version').all() as { version: number; applied_at: string }[];
    } finally {
      db.close();
    }
  };
  beforeAll(() => {
    // A store written by a build that knew migrations 1 to 3.
    const db = new Database(file);
    migrateSqlite(db, MIGRATIONS.slice(0, 3), 'the test store');
    db.close();
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('--dry-run lists what is pending and changes nothing; migrate applies it; the runtime then starts with nothing to apply', async () => {
    const before = ledger();
    const dry = await migrateCli(['--data-dir', dataDir, '--dry-run']);
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect(dry.out).toBe(`the memory store ${file}: ${MIGRATIONS.length - 3} pending migration(s), not applied (--dry-run):\n${pendingLines(3, MIGRATIONS)}`);
    expect(ledger()).toEqual(before);

    const applied = await migrateCli(['--data-dir', dataDir]);
    expect(applied).toMatchObject({ code: 0, err: '' });
    expect(applied.out).toBe(
      `the memory store ${file}: applied ${MIGRATIONS.length - 3} migration(s), now at migration ${MIGRATIONS.length}:\n${pendingLines(3, MIGRATIONS)}`,
    );
    const after = ledger();
    expect(after.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));

    await startAndStop(['--data-dir', dataDir]);
    expect(ledger()).toEqual(after);
    expect((await migrateCli(['--data-dir', dataDir, '--dry-run'])).out).toMatch(
      /is up to date \(migration \d+, the newest this build knows\): nothing to migrate\n$/,
    );
  });

  it('refuses a database whose applied migration was edited: one line, exit 1, nothing changed', async () => {
    const db = new Database(file);
    db.prepare("UPDATE schema_version SET sha256 = 'beef' WHERE version = 2").run();
    db.close();
    const before = ledger();
    const r = await migrateCli(['--data-dir', dataDir]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^agent-studio runtime: migration 2 \(a2a_tasks by context\) differs from the one applied to the memory store .*\n$/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(ledger()).toEqual(before);
  });
});

describe('runtime migrate on PostgreSQL', () => {
  const schema = newSchema('migrate');
  const env = { POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: schema };
  const ledger = () => sql<{ version: number; applied_at: Date }>(`SELECT version, hash, applied_at FROM "${schema}".store_migrations ORDER BY version`);
  const finishedIndex = async () => (await sql(`SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'a2a_tasks_finished_idx'`, [schema])).length;
  beforeAll(async () => {
    await ensurePostgres();
    const pool = new pg.Pool({ connectionString: TEST_DSN, max: 1 });
    try {
      await migrate(pool, schema, PG_MIGRATIONS.slice(0, 3)); // a schema written by a build that knew migrations 1 to 3
    } finally {
      await pool.end();
    }
  });
  afterAll(() => dropSchema(schema));

  it('--dry-run lists what is pending and changes nothing; migrate applies it; the runtime then starts with nothing to apply', async () => {
    const where = `the PostgreSQL schema "${schema}" at postgresql://postgres@127.0.0.1:5432/test`;
    const before = await ledger();
    const dry = await migrateCli(['--dry-run'], env);
    expect(dry).toMatchObject({ code: 0, err: '' });
    expect(dry.out).toBe(`${where}: ${PG_MIGRATIONS.length - 3} pending migration(s), not applied (--dry-run):\n${pendingLines(3, PG_MIGRATIONS)}`);
    expect(await ledger()).toEqual(before);
    expect(await finishedIndex()).toBe(0);

    const applied = await migrateCli([], env);
    expect(applied).toMatchObject({ code: 0, err: '' });
    expect(applied.out).toBe(
      `${where}: applied ${PG_MIGRATIONS.length - 3} migration(s), now at migration ${PG_MIGRATIONS.length}:\n${pendingLines(3, PG_MIGRATIONS)}`,
    );
    expect(await finishedIndex()).toBe(1);
    const after = await ledger();
    expect(after.map((r) => r.version)).toEqual(PG_MIGRATIONS.map((m) => m.version));

    await startAndStop(['--data-dir', tempDir('migrate-pg')], env);
    expect(await ledger()).toEqual(after);
  });

  it('refuses a schema a newer build migrated: one line, exit 1, for a dry run too', async () => {
    await sql(`INSERT INTO "${schema}".store_migrations (version, name, hash) VALUES (99, 'from a newer build', 'x')`);
    for (const args of [[], ['--dry-run']]) {
      const r = await migrateCli(args, env);
      expect(r.code).toBe(1);
      expect(r.err).toBe(
        `agent-studio runtime: the PostgreSQL schema "${schema}" has migration 99 applied, newer than this build supports (it knows migrations 1 to ${PG_MIGRATIONS.length}): ` +
          'a newer version wrote it; use that version or another database (this one was left unmodified)\n',
      );
    }
  });
});
