// The store being unreachable or unwritable (docs/deployment.md, "When the store is
// unreachable"; D-50), told apart from every other store error at the store's edge
// (guard.ts), so that each surface answers it in its own documented shape:
//   - A2A: the JSON-RPC error STORE_UNAVAILABLE_RPC with errorCode UPSTREAM_UNAVAILABLE (spec
//     7.2), a turn `failed` with errorReason `store_unavailable`;
//   - the management API: 503 STORE_UNAVAILABLE in the envelope (spec 2.1, an extension of 7.1);
//   - the probes: 503, `failing: "store"`.
// The message a client reads names no address, file or driver text: those stay in the log
// (`detail` and the cause).

/** The answer every client reads; the database's address, file and error text stay in the log. */
export const STORE_UNAVAILABLE_MESSAGE =
  "The runtime's store (its database) cannot be reached or written right now; nothing of this request was kept. Try again shortly.";

export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** What failed, for the log (may name the driver's error code; never sent to a client). */
  readonly detail: string;

  constructor(detail: string, cause?: unknown) {
    super(STORE_UNAVAILABLE_MESSAGE, cause === undefined ? undefined : { cause });
    this.detail = detail;
  }
}

/** Socket-level failures of a PostgreSQL connection (node's errno codes). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);

/** node-postgres's own words for a connection that ended, or could not be had in time. */
const PG_CONNECTION_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable|Connection terminated due to connection timeout|Query read timeout)/;

/** SQLite result codes of a database that cannot be written now (locked, busy, I/O, full,
 * read-only): the request may succeed later; anything else (a constraint, a bug) is not an
 * outage. */
const SQLITE_OUTAGE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|READONLY|CANTOPEN|PROTOCOL)/;

/**
 * PostgreSQL SQLSTATEs of an unavailable server: class 08 (connection exception), 57P01-57P03
 * (admin or crash shutdown, cannot connect now) and 53300 (too many connections).
 */
function pgOutage(code: string): boolean {
  return /^08/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300';
}

/** Why `err` (or an error it was caused by) is a store outage, or null when it is not one. */
export function outageOf(err: unknown): string | null {
  let cur: unknown = err;
  for (let i = 0; i < 5 && cur && typeof cur === 'object'; i++) {
    if (cur instanceof StoreUnavailableError) return cur.detail;
    const e = cur as { code?: unknown; message?: unknown; cause?: unknown };
    const code = typeof e.code === 'string' ? e.code : '';
    const message = typeof e.message === 'string' ? e.message : '';
    if (SQLITE_OUTAGE.test(code)) return `${code}: ${message}`;
    if (CONNECTION_CODES.has(code)) return `connection failed (${code})`;
    if (code && pgOutage(code)) return `server unavailable (SQLSTATE ${code})`;
    if (PG_CONNECTION_MESSAGES.test(message)) return message;
    cur = e.cause;
  }
  return null;
}

/** `err` as a StoreUnavailableError when it is an outage, else `err` unchanged. */
export function asStoreError(err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err;
  const detail = outageOf(err);
  return detail === null ? err : new StoreUnavailableError(detail, err);
}
