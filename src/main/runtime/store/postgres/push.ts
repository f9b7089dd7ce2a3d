// Push-notification configurations and the outbox on PostgreSQL (migration 6; the contract
// and the SQLite twin are in ../push-store.ts). Rows are claimed with FOR UPDATE SKIP LOCKED,
// so replicas polling together never take the same row.
import type pg from 'pg';
import type { PushConfig } from '../../push/config.ts';
import { outboxRow, type PushStore } from '../push-store.ts';

/** A notification's outbox rows, one per configuration of task $1 (event key $2, body $3). */
export const enqueueSql = (s: string) => `INSERT INTO ${s}.push_outbox (task_id, config_id, event_key, config, body, next_at, created_at)
  SELECT task_id, config_id, $2, config, $3, now(), now() FROM ${s}.push_configs WHERE task_id = $1
  ON CONFLICT (task_id, config_id, event_key) DO NOTHING`;

/** `s`: the quoted schema. */
export function pgPushStore(pool: pg.Pool, s: string): PushStore {
  return {
    putConfig: async (taskId, config, max) => {
      // One statement: the count and the write see the same rows; a task's configurations are
      // written by its owner only, so two writers racing past the limit by one is harmless.
      const r = await pool.query(
        `INSERT INTO ${s}.push_configs (task_id, config_id, config, created_at)
         SELECT $1, $2, $3, now() WHERE (SELECT count(*) FROM ${s}.push_configs WHERE task_id = $1 AND config_id <> $2) < $4
         ON CONFLICT (task_id, config_id) DO UPDATE SET config = excluded.config`,
        [taskId, config.id, JSON.stringify(config), max],
      );
      return (r.rowCount ?? 0) > 0 ? 'ok' : 'full';
    },
    configs: async (taskId) =>
      (await pool.query<{ config: string }>(`SELECT config FROM ${s}.push_configs WHERE task_id = $1 ORDER BY created_at, config_id`, [taskId])).rows.map(
        (r) => JSON.parse(r.config) as PushConfig,
      ),
    deleteConfig: async (taskId, configId) => {
      await pool.query(`DELETE FROM ${s}.push_configs WHERE task_id = $1 AND config_id = $2`, [taskId, configId]);
    },
    enqueue: async (taskId, key, body) => {
      const r = await pool.query(enqueueSql(s), [taskId, key, body]);
      return r.rowCount ?? 0;
    },
    claim: async (replica, leaseMs, limit) => {
      const r = await pool.query(
        `UPDATE ${s}.push_outbox SET claimed_by = $1, lease_until = now() + $2 * interval '1 millisecond', attempts = attempts + 1
         WHERE id IN (SELECT id FROM ${s}.push_outbox WHERE status = 'pending' AND next_at <= now() AND (lease_until IS NULL OR lease_until < now())
                      ORDER BY next_at, id LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING id, task_id, config_id, config, body, attempts`,
        [replica, leaseMs, limit],
      );
      return r.rows.map(outboxRow);
    },
    settle: async (id, replica, outcome, error) => {
      const delay = outcome.status === 'pending' ? outcome.delayMs : 0;
      await pool.query(
        `UPDATE ${s}.push_outbox SET status = $3, next_at = now() + $4 * interval '1 millisecond', lease_until = NULL, last_error = coalesce($5, last_error),
           done_at = CASE WHEN $3 = 'pending' THEN NULL ELSE now() END
         WHERE id = $1 AND claimed_by = $2`,
        [id, replica, outcome.status, delay, error ?? null],
      );
    },
    outbox: async (taskId) =>
      (
        await pool.query(
          `SELECT config_id AS "configId", event_key AS "eventKey", status, attempts, claimed_by AS "claimedBy", last_error AS "lastError"
           FROM ${s}.push_outbox WHERE task_id = $1 ORDER BY id`,
          [taskId],
        )
      ).rows as Awaited<ReturnType<PushStore['outbox']>>,
  };
}
