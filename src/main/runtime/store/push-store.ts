// Push-notification configurations and the delivery outbox in the memory store (tables
// push_configs and push_outbox; docs/a2a-conformance.md, "Push notifications"; D-90). A
// notification is a row of the outbox, written before anything is sent; a replica claims due
// rows with a lease (claimed_by, lease_until) the way tasks are leased, so a claim of a
// replica that died runs out and another replica sends the row. A row ends `delivered` or
// `failed` (attempts used up, or refused for good). This file holds the contract and the
// SQLite twin; postgres/push.ts the PostgreSQL one.
import type Database from 'better-sqlite3';
import type { PushConfig } from '../push/config.ts';
import type { WriteBatch } from './write-batch.ts';

/** A notification claimed for delivery. `attempts` counts this one. */
export interface OutboxRow {
  id: number;
  taskId: string;
  configId: string;
  config: PushConfig;
  /** The task as JSON, as it was when the notification was made. */
  body: string;
  attempts: number;
}

export interface PushStore {
  /** Adds or replaces the task's configuration `config.id`; 'full' when the task has `max` others. */
  putConfig(taskId: string, config: PushConfig, max: number): Promise<'ok' | 'full'>;
  configs(taskId: string): Promise<PushConfig[]>;
  deleteConfig(taskId: string, configId: string): Promise<void>;
  /** One outbox row per configuration of the task, for the event `eventKey` (a second call with
   * the same key adds nothing). Returns how many rows were added. */
  enqueue(taskId: string, eventKey: string, body: string): Promise<number>;
  /** Up to `limit` due rows, claimed by `replica` for `leaseMs`, their attempts counted. */
  claim(replica: string, leaseMs: number, limit: number): Promise<OutboxRow[]>;
  /** Ends a row this replica holds: delivered, failed for good, or due again after `delayMs`; `error` (the
   * attempt's) is kept as last_error, which a later success leaves in place. */
  settle(id: number, replica: string, outcome: { status: 'delivered' | 'failed' } | { status: 'pending'; delayMs: number }, error?: string): Promise<void>;
  /** The outbox rows of a task (operators, tests). */
  outbox(
    taskId: string,
  ): Promise<{ configId: string; eventKey: string; status: string; attempts: number; claimedBy: string | null; lastError: string | null }[]>;
}

interface RawRow {
  id: number;
  task_id: string;
  config_id: string;
  config: string;
  body: string;
  attempts: number;
}

export function outboxRow(r: RawRow): OutboxRow {
  return { id: Number(r.id), taskId: r.task_id, configId: r.config_id, config: JSON.parse(r.config) as PushConfig, body: r.body, attempts: Number(r.attempts) };
}

/** One outbox row per configuration of task @task for event @key (none twice): the push store's
 * enqueue and the task store's save that carries its notification (taskStore.ts) share it. */
export const SQLITE_ENQUEUE_SQL = `INSERT INTO push_outbox (task_id, config_id, event_key, config, body, next_at, created_at)
       SELECT task_id, config_id, @key, config, @body, @now, @now FROM push_configs WHERE task_id = @task
       ON CONFLICT (task_id, config_id, event_key) DO NOTHING`;

export function sqlitePushStore(db: Database.Database, writes: WriteBatch): PushStore {
  const st = {
    count: db.prepare('SELECT count(*) FROM push_configs WHERE task_id = ? AND config_id <> ?').pluck(),
    put: db.prepare(
      `INSERT INTO push_configs (task_id, config_id, config, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (task_id, config_id) DO UPDATE SET config = excluded.config`,
    ),
    list: db.prepare('SELECT config FROM push_configs WHERE task_id = ? ORDER BY created_at, config_id').pluck(),
    del: db.prepare('DELETE FROM push_configs WHERE task_id = ? AND config_id = ?'),
    has: db.prepare('SELECT 1 FROM push_configs WHERE task_id = ? LIMIT 1').pluck(),
    enqueue: db.prepare(SQLITE_ENQUEUE_SQL),
    due: db.prepare(`SELECT 1 FROM push_outbox WHERE status = 'pending' AND next_at <= @now AND (lease_until IS NULL OR lease_until < @now) LIMIT 1`).pluck(),
    claim: db.prepare(
      `UPDATE push_outbox SET claimed_by = @replica, lease_until = @now + @lease, attempts = attempts + 1
       WHERE id IN (SELECT id FROM push_outbox WHERE status = 'pending' AND next_at <= @now AND (lease_until IS NULL OR lease_until < @now)
                    ORDER BY next_at, id LIMIT @limit)
       RETURNING id, task_id, config_id, config, body, attempts`,
    ),
    settle: db.prepare(
      `UPDATE push_outbox SET status = @status, next_at = @next, lease_until = NULL, last_error = coalesce(@error, last_error), done_at = @done
       WHERE id = @id AND claimed_by = @replica`,
    ),
    outbox: db.prepare(
      `SELECT config_id AS configId, event_key AS eventKey, status, attempts, claimed_by AS claimedBy, last_error AS lastError
       FROM push_outbox WHERE task_id = ? ORDER BY id`,
    ),
  };
  return {
    putConfig: (taskId, config, max) =>
      writes.run(() => {
        if ((st.count.get(taskId, config.id) as number) >= max) return 'full' as const;
        st.put.run(taskId, config.id, JSON.stringify(config), new Date().toISOString());
        return 'ok' as const;
      }),
    configs: async (taskId) => (st.list.all(taskId) as string[]).map((c) => JSON.parse(c) as PushConfig),
    deleteConfig: async (taskId, configId) => {
      await writes.run(() => st.del.run(taskId, configId));
    },
    // A task without configurations (most) costs a read, not a write transaction.
    enqueue: async (taskId, key, body) =>
      st.has.get(taskId) === undefined ? 0 : writes.run(() => st.enqueue.run({ task: taskId, key, body, now: Date.now() }).changes),
    // Every replica looks every PUSH_POLL_MS: a look that finds nothing due takes no write lock.
    claim: async (replica, lease, limit) =>
      st.due.get({ now: Date.now() }) === undefined
        ? []
        : writes.run(() => (st.claim.all({ replica, lease, limit, now: Date.now() }) as RawRow[]).map(outboxRow)),
    settle: async (id, replica, outcome, error) => {
      const now = Date.now();
      const next = outcome.status === 'pending' ? now + outcome.delayMs : now;
      await writes.run(() =>
        st.settle.run({ id, replica, status: outcome.status, next, error: error ?? null, done: outcome.status === 'pending' ? null : now }),
      );
    },
    outbox: async (taskId) => st.outbox.all(taskId) as Awaited<ReturnType<PushStore['outbox']>>,
  };
}
