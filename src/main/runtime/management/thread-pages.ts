// Pages of GET /api/v1/memory/threads (docs/management-api.md, "Threads, page by page"; an
// extension of spec 4.2): `limit` threads (1..1000, default 100) oldest first, and an opaque
// `next_cursor` to ask for the next page, null after the last. The cursor is the base64url of
// the page's last thread's (created_at, thread_id), the order the stores list threads in.
import { ManagementError } from './envelope.ts';
import type { ThreadCursor } from '../store/types.ts';

export const DEFAULT_THREAD_PAGE = 100;
export const MAX_THREAD_PAGE = 1000;

export function encodeCursor(c: ThreadCursor): string {
  return Buffer.from(JSON.stringify([c.createdAt, c.threadId])).toString('base64url');
}

/** The cursor a previous page answered; anything else is INVALID_PARAM. */
export function decodeCursor(raw: string): ThreadCursor {
  const bad = () => new ManagementError('INVALID_PARAM', "'cursor' must be the next_cursor of a previous page.", { field: 'cursor' });
  if (!/^[A-Za-z0-9_-]{1,2048}$/.test(raw)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 2 || typeof value[0] !== 'string' || typeof value[1] !== 'string') throw bad();
  // created_at as the stores write it: an ISO timestamp (PostgreSQL compares it as timestamptz).
  if (value[0].length > 64 || Number.isNaN(Date.parse(value[0]))) throw bad();
  return { createdAt: value[0], threadId: value[1] };
}

/** `limit` from the query: an integer 1..1000; absent, the default. */
export function pageLimit(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_THREAD_PAGE;
  if (!/^\d{1,4}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_THREAD_PAGE)
    throw new ManagementError('INVALID_PARAM', `'limit' must be an integer from 1 to ${MAX_THREAD_PAGE}, got '${raw}'.`, { field: 'limit' });
  return Number(raw);
}
