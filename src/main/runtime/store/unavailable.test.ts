// Which store errors are an outage (docs/deployment.md, "When the store is unreachable"): the
// database unreachable or unwritable is; a constraint, a bug or a closed store is not. The
// message a client reads names no address.
import { describe, expect, it } from 'vitest';
import { asStoreError, outageOf, StoreUnavailableError } from './unavailable.ts';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('store outages', () => {
  it('are the connection failures and unavailable-server states of PostgreSQL', () => {
    expect(outageOf(withCode('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED'))).toBe('connection failed (ECONNREFUSED)');
    expect(outageOf(withCode('read ECONNRESET', 'ECONNRESET'))).toBe('connection failed (ECONNRESET)');
    expect(outageOf(new Error('Connection terminated unexpectedly'))).toBe('Connection terminated unexpectedly');
    expect(outageOf(new Error('timeout exceeded when trying to connect'))).toBe('timeout exceeded when trying to connect');
    expect(outageOf(withCode('terminating connection due to administrator command', '57P01'))).toBe('server unavailable (SQLSTATE 57P01)');
    expect(outageOf(withCode('sorry, too many clients already', '53300'))).toBe('server unavailable (SQLSTATE 53300)');
    expect(outageOf(withCode('connection failure', '08006'))).toBe('server unavailable (SQLSTATE 08006)');
  });

  it('are a SQLite database that cannot be written now', () => {
    expect(outageOf(withCode('database is locked', 'SQLITE_BUSY'))).toBe('SQLITE_BUSY: database is locked');
    expect(outageOf(withCode('disk I/O error', 'SQLITE_IOERR_WRITE'))).toBe('SQLITE_IOERR_WRITE: disk I/O error');
    expect(outageOf(withCode('database or disk is full', 'SQLITE_FULL'))).not.toBeNull();
  });

  it('are found in the cause chain, and nothing else is one', () => {
    expect(outageOf(new Error('wrapped', { cause: withCode('x', 'ECONNREFUSED') }))).toBe('connection failed (ECONNREFUSED)');
    expect(outageOf(withCode('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_PRIMARYKEY'))).toBeNull();
    expect(outageOf(withCode('duplicate key value', '23505'))).toBeNull();
    expect(outageOf(new Error('the task store is closed'))).toBeNull();
    expect(outageOf('text')).toBeNull();
  });

  it('become a StoreUnavailableError whose message names no address (the driver error stays its cause)', () => {
    const raw = withCode('connect ECONNREFUSED 10.0.0.5:5432', 'ECONNREFUSED');
    const e = asStoreError(raw) as StoreUnavailableError;
    expect(e).toBeInstanceOf(StoreUnavailableError);
    expect(e.message).not.toMatch(/10\.0\.0\.5|5432|ECONNREFUSED/);
    expect(e.cause).toBe(raw);
    expect(asStoreError(e)).toBe(e);
    const other = new Error('bug');
    expect(asStoreError(other)).toBe(other);
  });
});
