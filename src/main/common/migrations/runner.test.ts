// The runner's rules, independent of the database: what a ledger means, and the hash rule.
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkNumbering, MigrationError, migrationHash, planMigrations, type MigrationEntry } from './runner.ts';

const MIGRATIONS: MigrationEntry[] = [
  { version: 1, name: 'one', sql: 'CREATE TABLE a (x)' },
  { version: 2, name: 'two', sql: 'ALTER TABLE a ADD y', step: () => undefined },
  { version: 3, name: 'three', step: () => undefined },
];
const sha = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const recorded = (n: number) => MIGRATIONS.slice(0, n).map((m) => ({ version: m.version, sha256: migrationHash(m) }));
const WHERE = 'the test database /tmp/x.sqlite';

describe('migrationHash', () => {
  it('hashes the SQL as written, and a code step by its name', () => {
    expect(migrationHash(MIGRATIONS[0])).toBe(sha('CREATE TABLE a (x)'));
    expect(migrationHash(MIGRATIONS[1])).toBe(sha('ALTER TABLE a ADD ystep:two'));
    expect(migrationHash(MIGRATIONS[2])).toBe(sha('step:three'));
  });
});

describe('planMigrations', () => {
  it('applies everything to a fresh database and nothing to a current one', () => {
    expect(planMigrations([], MIGRATIONS, WHERE)).toEqual({ adopt: [], pending: MIGRATIONS });
    expect(planMigrations(recorded(3), MIGRATIONS, WHERE)).toEqual({ adopt: [], pending: [] });
    expect(planMigrations(recorded(1), MIGRATIONS, WHERE).pending.map((m) => m.version)).toEqual([2, 3]);
  });

  it('adopts the hashes of applied migrations recorded without one', () => {
    const plan = planMigrations(
      [
        { version: 1, sha256: null },
        { version: 2, sha256: null },
      ],
      MIGRATIONS,
      WHERE,
    );
    expect(plan.adopt.map((m) => m.version)).toEqual([1, 2]);
    expect(plan.pending.map((m) => m.version)).toEqual([3]);
  });

  it('refuses an edited applied migration, naming it and the database', () => {
    const edited = MIGRATIONS.map((m) => (m.version === 2 ? { ...m, sql: `${m.sql} -- edited` } : m));
    const err = catchError(() => planMigrations(recorded(3), edited, WHERE));
    expect(err).toBeInstanceOf(MigrationError);
    expect(err).toMatchObject({ code: 'edited_migration' });
    expect(err.message).toMatch(/^migration 2 \(two\) differs from the one applied to the test database \/tmp\/x\.sqlite/);
    // A renamed step is an edit too.
    const renamed = MIGRATIONS.map((m) => (m.version === 3 ? { ...m, name: 'three again' } : m));
    expect(catchError(() => planMigrations(recorded(3), renamed, WHERE))).toMatchObject({ code: 'edited_migration' });
  });

  it('refuses a database with a migration this build does not know', () => {
    const err = catchError(() => planMigrations([...recorded(3), { version: 4, sha256: 'f'.repeat(64) }], MIGRATIONS, WHERE));
    expect(err).toMatchObject({ code: 'newer_database' });
    expect(err.message).toBe(
      'the test database /tmp/x.sqlite has migration 4 applied, newer than this build supports (it knows migrations 1 to 3): ' +
        'a newer version wrote it; use that version or another database (this one was left unmodified)',
    );
  });
});

describe('checkNumbering', () => {
  it('wants 1, 2, 3, ... in order, each with SQL or a step', () => {
    expect(() => checkNumbering(MIGRATIONS)).not.toThrow();
    expect(() => checkNumbering([MIGRATIONS[0], MIGRATIONS[2]])).toThrow(/numbered 3; expected 2/);
    expect(() => checkNumbering([{ version: 1, name: 'empty' }])).toThrow(/neither SQL nor a step/);
  });
});

function catchError(fn: () => unknown): Error & { code?: string } {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}
