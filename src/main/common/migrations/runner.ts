// The rules every store's schema follows, whatever the database: migrations are numbered
// 1, 2, 3, ...; each applied one is recorded with the sha256 of its text; each runs in its
// own transaction; a database is refused when an applied migration's text changed since
// (shipped migrations are never edited: add the next number) or when it has a migration
// applied that this build does not know (a newer build wrote it; it is left unmodified). A
// database recorded before hashes were kept (a null hash) adopts the hashes of this build's
// migrations on first open; edits are refused from then on. The adapters (sqlite.ts,
// postgres.ts) apply this plan to a connection.
import crypto from 'node:crypto';

/** What the runner reads of a migration; the adapters give `step` its type. */
export interface MigrationEntry {
  /** 1 for the first migration, then each next integer. */
  version: number;
  /** Recorded with the version; a code step's name is part of its hash. */
  name: string;
  /** Statements run first inside the migration's transaction. */
  sql?: string;
  /** Code run after `sql` inside the same transaction (a backfill, a library's own setup). */
  step?: unknown;
}

export interface Migration<Tx = unknown> extends MigrationEntry {
  step?: (tx: Tx) => void | Promise<void>;
}

/** A row of a store's migration ledger; `sha256` is null where a hash was never recorded. */
export interface AppliedMigration {
  version: number;
  sha256: string | null;
}

export type MigrationErrorCode = 'edited_migration' | 'newer_database';

/** A database this build must not open; nothing in it was changed. */
export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    readonly code: MigrationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The hash a migration is recorded with: sha256 (hex) of its SQL text as written in the code
 * (before any placeholder is filled in), followed for a code step by `step:<name>` (code is
 * not hashed: its text changes with the build). So renaming a step counts as an edit.
 */
export function migrationHash(m: MigrationEntry): string {
  return crypto
    .createHash('sha256')
    .update((m.sql ?? '') + (m.step ? `step:${m.name}` : ''))
    .digest('hex');
}

export interface MigrationPlan<M extends MigrationEntry> {
  /** Applied migrations whose hash was never recorded: record this build's hash for them. */
  adopt: M[];
  /** Migrations not applied yet, in order. */
  pending: M[];
}

/** Throws on a list that is not numbered 1..n in order (a mistake in the code, not the database). */
export function checkNumbering(migrations: readonly MigrationEntry[]): void {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1)
      throw new Error(`migration '${m.name}' is numbered ${m.version}; expected ${i + 1} (migrations are numbered 1, 2, 3, ... in order)`);
    if (m.sql === undefined && m.step === undefined) throw new Error(`migration ${m.version} (${m.name}) has neither SQL nor a step`);
  });
}

/**
 * What to do with a database whose ledger holds `applied`, or a MigrationError naming
 * `where` (the database file, or the PostgreSQL schema) when it must not be opened.
 */
export function planMigrations<M extends MigrationEntry>(applied: readonly AppliedMigration[], migrations: readonly M[], where: string): MigrationPlan<M> {
  checkNumbering(migrations);
  const newest = migrations.length;
  const unknown = applied.filter((row) => row.version < 1 || row.version > newest).map((row) => row.version);
  if (unknown.length > 0) {
    throw new MigrationError(
      'newer_database',
      `${where} has migration ${Math.max(...unknown)} applied, newer than this build supports (it knows migrations 1 to ${newest}): ` +
        'a newer version wrote it; use that version or another database (this one was left unmodified)',
    );
  }
  const adopt: M[] = [];
  for (const row of applied) {
    const m = migrations[row.version - 1];
    const expected = migrationHash(m);
    if (row.sha256 === null) adopt.push(m);
    else if (row.sha256 !== expected) {
      throw new MigrationError(
        'edited_migration',
        `migration ${m.version} (${m.name}) differs from the one applied to ${where} ` +
          `(recorded sha256 ${row.sha256.slice(0, 12)}, this build's ${expected.slice(0, 12)}): ` +
          'an applied migration must never be edited; restore it and add a new numbered migration instead',
      );
    }
  }
  const done = new Set(applied.map((row) => row.version));
  return { adopt, pending: migrations.filter((m) => !done.has(m.version)) };
}
