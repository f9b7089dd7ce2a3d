// The retention sweep's statements on the PostgreSQL memory store (store/retention.ts), on a
// connection of its own. Replicas share the store: a sweep runs only while it holds a
// session-level advisory lock keyed by the schema (pg_try_advisory_lock), so one replica at a
// time sweeps and the others skip that interval. Each batch is one transaction.
import crypto from 'node:crypto';
import pg from 'pg';
import type { RetentionBackend, RetentionOps, ThreadBatch } from '../retention.ts';
import { quoteIdent } from './migrations.ts';
import { scrub } from './dsn.ts';
import { inTransaction } from '../../../common/migrations/postgres.ts';

const FINAL_SQL = "('completed', 'failed', 'canceled', 'rejected')";

/** The advisory lock key a sweep holds, per schema. */
export function retentionLockKey(schema: string): string {
  return crypto.createHash('sha256').update(`agent-studio.retention:${schema}`).digest().readBigInt64BE(0).toString();
}

function operations(c: pg.PoolClient, schema: string): RetentionOps {
  const q = quoteIdent(schema);
  // A task that keeps its thread's checkpoints: not finished, or updated at or after $1.
  const busyTask = (thread: string) => `SELECT 1 FROM ${q}.a2a_tasks a WHERE a.context_id = ${thread}
    AND (a.state IS NULL OR a.state NOT IN ${FINAL_SQL} OR a.updated_at >= $1::timestamptz)`;
  const tx = <T>(fn: () => Promise<T>): Promise<T> => inTransaction(c, fn);
  return {
    // The partial index a2a_tasks_finished_idx (migration 4) serves the inner query.
    deleteTasks: async (before, limit) =>
      (
        await c.query(
          // A deleted task's push-notification configurations and outbox rows go with it (../push-store.ts).
          `WITH gone AS (DELETE FROM ${q}.a2a_tasks WHERE task_id IN (
             SELECT task_id FROM ${q}.a2a_tasks WHERE state IN ${FINAL_SQL} AND updated_at < $1::timestamptz
             ORDER BY updated_at LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING task_id),
           configs AS (DELETE FROM ${q}.push_configs WHERE task_id IN (SELECT task_id FROM gone)),
           outbox AS (DELETE FROM ${q}.push_outbox WHERE task_id IN (SELECT task_id FROM gone))
           SELECT count(*)::int AS n FROM gone`,
          [before, limit],
        )
      ).rows[0].n as number,
    clearThreads: (before, after, limit) =>
      tx(async (): Promise<ThreadBatch> => {
        // A checkpoint's time is LangGraph's own `ts` (an ISO string) in its JSON document.
        const page = await c.query<{ thread_id: string; idle: boolean }>(
          `SELECT t.thread_id,
             EXISTS (SELECT 1 FROM ${q}.checkpoints c WHERE c.thread_id = t.thread_id)
             AND NOT EXISTS (SELECT 1 FROM ${q}.checkpoints c WHERE c.thread_id = t.thread_id AND c.checkpoint->>'ts' >= $1)
             AND NOT EXISTS (${busyTask('t.thread_id')}) AS idle
           FROM (SELECT thread_id FROM ${q}.threads WHERE thread_id > $2 ORDER BY thread_id LIMIT $3) t ORDER BY t.thread_id`,
          [before, after, limit],
        );
        const idle = page.rows.filter((r) => r.idle).map((r) => r.thread_id);
        let checkpoints = 0;
        if (idle.length > 0) {
          // Checked again in each statement: a turn that started since the page was read keeps its thread.
          const del = (table: string) =>
            c.query(`DELETE FROM ${q}.${table} x WHERE x.thread_id = ANY($2::text[]) AND NOT EXISTS (${busyTask('x.thread_id')})`, [before, idle]);
          checkpoints = (await del('checkpoints')).rowCount ?? 0;
          await del('checkpoint_blobs');
          await del('checkpoint_writes');
        }
        const rows = page.rows;
        return { last: rows.length < limit ? null : rows[rows.length - 1].thread_id, threads: idle.length, checkpoints };
      }),
  };
}

export function postgresRetention(dsn: string, schema: string): RetentionBackend {
  const pool = new pg.Pool({ connectionString: dsn, max: 1, connectionTimeoutMillis: 5_000, application_name: 'agent-studio-retention' });
  pool.on('error', () => undefined); // an idle connection lost: the next sweep reconnects
  return {
    async exclusive(sweep) {
      let c: pg.PoolClient;
      try {
        c = await pool.connect();
      } catch (err) {
        throw new Error(scrub((err as Error).message, dsn));
      }
      const key = retentionLockKey(schema);
      let failure: Error | undefined;
      try {
        const got = (await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [key])).rows[0]?.ok;
        if (!got) return null;
        try {
          return await sweep(operations(c, schema));
        } finally {
          await c.query('SELECT pg_advisory_unlock($1)', [key]).catch(() => undefined);
        }
      } catch (err) {
        failure = err as Error;
        throw new Error(scrub(failure.message, dsn));
      } finally {
        c.release(failure); // a connection that failed is closed, not reused (its session lock ends with it)
      }
    },
    close: () => pool.end(),
  };
}
