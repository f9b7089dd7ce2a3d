// GET /api/v1/memory/threads page by page (docs/management-api.md, "Threads, page by page"; an
// extension of spec 4.2): `limit` (1..1000, default 100), an opaque `cursor`, `next_cursor`
// null after the last page; with `user`, pages of that user's threads. A bad limit or cursor is
// a 400 INVALID_PARAM envelope. On the SQLite file and on PostgreSQL in a fresh schema.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { dropSchema, ensurePostgres, newSchema, TEST_DSN } from './helpers/postgres.ts';

const BACKENDS = [
  { name: 'sqlite', env: () => ({}) },
  { name: 'postgres', env: () => ({ MEMORY_BACKEND: 'postgres', POSTGRES_DSN: TEST_DSN, POSTGRES_SCHEMA: newSchema('pages') }) },
];

async function get(rt: TestRuntime, query: string): Promise<{ status: number; body: any }> {
  const res = await fetch(new URL(`api/v1/memory/threads${query}`, rt.url));
  return { status: res.status, body: await res.json() };
}

describe.each(BACKENDS)('thread pages on $name', (backend) => {
  let rt: TestRuntime;
  let env: Record<string, string>;
  // 7 threads: t0..t6, the even ones of user alice, the odd ones of bob; oldest first.
  const ids = Array.from({ length: 7 }, (_, i) => `t${i}`);
  beforeAll(async () => {
    await ensurePostgres();
    env = backend.env();
    rt = await startTestRuntime({ env: { AGENT_ID: 'agent-p', ...env } });
    const store = rt.runtime.context.store;
    for (const [i, id] of ids.entries()) await store.claimThread('agent-p', id, i % 2 ? 'bob' : 'alice');
    await store.claimThread('other-agent', 'x-other', 'alice');
  });
  afterAll(async () => {
    await rt?.close();
    if (env?.POSTGRES_SCHEMA) await dropSchema(env.POSTGRES_SCHEMA);
  });

  /** Every page of `query` in turn, following next_cursor. */
  async function walk(query: string): Promise<string[][]> {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const r = await get(rt, `?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      pages.push(r.body.data.threads);
      cursor = r.body.data.next_cursor;
    } while (cursor !== null && pages.length < 20);
    return pages;
  }

  it('answers every thread on one page by default, with next_cursor null (spec 4.2 fields kept)', async () => {
    const r = await get(rt, '');
    expect(r.body).toMatchObject({ success: true, error: null });
    expect(r.body.data).toEqual({ agent_id: 'agent-p', threads: ids, limit: 100, next_cursor: null });
  });

  it('walks the threads a page at a time, oldest first, each once', async () => {
    expect(await walk('limit=3')).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
    // A page that ends exactly at the last thread answers next_cursor null.
    const exact = await get(rt, '?limit=7');
    expect(exact.body.data).toMatchObject({ threads: ids, next_cursor: null });
  });

  it("pages one user's threads with ?user=", async () => {
    expect(await walk('user=alice&limit=2')).toEqual([
      ['t0', 't2'],
      ['t4', 't6'],
    ]);
    const bob = await get(rt, '?user=bob&limit=2');
    expect(bob.body.data).toMatchObject({ agent_id: 'agent-p', user: 'bob', threads: ['t1', 't3'], limit: 2 });
    expect(typeof bob.body.data.next_cursor).toBe('string');
  });

  it('refuses a bad limit or cursor with 400 INVALID_PARAM', async () => {
    for (const q of [
      '?limit=0',
      '?limit=1001',
      '?limit=ten',
      '?limit=2.5',
      '?limit=-1',
      '?limit=1&limit=2',
      '?cursor=%%%',
      '?cursor=bm90LWpzb24',
      '?cursor=WzEsMl0',
    ]) {
      const r = await get(rt, q);
      expect(r.status, q).toBe(400);
      expect(r.body, q).toMatchObject({ success: false, data: null, error: { code: 'INVALID_PARAM' } });
    }
    // A cursor whose timestamp is no timestamp (made up by hand) is refused, not a store error.
    const forged = Buffer.from(JSON.stringify(['yesterday', 't1'])).toString('base64url');
    expect((await get(rt, `?cursor=${forged}`)).status).toBe(400);
  });
});
