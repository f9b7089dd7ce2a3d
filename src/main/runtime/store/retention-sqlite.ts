// The retention sweep's statements on the SQLite memory store (store/retention.ts), on a
// connection of its own: each batch is one BEGIN IMMEDIATE transaction, so it waits for (and
// holds up) the runtime's writes only for one batch. Processes sharing the file (--workers N)
// may each sweep; the deletes are idempotent, so two sweeps at once do no harm.
import Database from 'better-sqlite3';
import type { RetentionBackend, RetentionOps, ThreadBatch } from './retention.ts';
import { BUSY_TIMEOUT_MS } from './sqlite.ts';

const FINAL_SQL = "('completed', 'failed', 'canceled', 'rejected')";

/** A task that keeps its thread's checkpoints: not finished, or updated at or after @before. */
const BUSY_TASK = `SELECT 1 FROM a2a_tasks a WHERE a.context_id = t.thread_id
  AND (a.state IS NULL OR a.state NOT IN ${FINAL_SQL} OR a.updated_at >= @before)`;

export function sqliteRetention(file: string): RetentionBackend {
  const db = new Database(file, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  const s = {
    // The partial index a2a_tasks_finished_idx (migration 5) serves the inner query.
    deleteTasks: db
      .prepare(
        `DELETE FROM a2a_tasks WHERE task_id IN (
         SELECT task_id FROM a2a_tasks WHERE state IN ${FINAL_SQL} AND updated_at < ? ORDER BY updated_at LIMIT ?) RETURNING task_id`,
      )
      .pluck(),
    // A deleted task's push-notification configurations and outbox rows go with it (push-store.ts).
    delPushConfigs: db.prepare('DELETE FROM push_configs WHERE task_id = ?'),
    delPushOutbox: db.prepare('DELETE FROM push_outbox WHERE task_id = ?'),
    page: db.prepare('SELECT thread_id FROM threads WHERE thread_id > ? ORDER BY thread_id LIMIT ?').pluck(),
    idle: db
      .prepare(
        `SELECT t.thread_id FROM threads t WHERE t.thread_id = @id
           AND EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = t.thread_id)
           AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.thread_id = t.thread_id AND c.created_at >= @before)
           AND NOT EXISTS (${BUSY_TASK})`,
      )
      .pluck(),
    delCheckpoints: db.prepare('DELETE FROM checkpoints WHERE thread_id = ?'),
    delBlobs: db.prepare('DELETE FROM checkpoint_blobs WHERE thread_id = ?'),
    delWrites: db.prepare('DELETE FROM checkpoint_writes WHERE thread_id = ?'),
  };
  const clear = (before: string, after: string, limit: number): ThreadBatch => {
    const ids = s.page.all(after, limit) as string[];
    let threads = 0;
    let checkpoints = 0;
    for (const id of ids) {
      if (s.idle.get({ id, before }) === undefined) continue;
      threads++;
      checkpoints += s.delCheckpoints.run(id).changes;
      s.delBlobs.run(id);
      s.delWrites.run(id);
    }
    return { last: ids.length < limit ? null : ids[ids.length - 1], threads, checkpoints };
  };
  const ops: RetentionOps = {
    deleteTasks: async (before, limit) =>
      db
        .transaction(() => {
          const ids = s.deleteTasks.all(before, limit) as string[];
          for (const id of ids) {
            s.delPushConfigs.run(id);
            s.delPushOutbox.run(id);
          }
          return ids.length;
        })
        .immediate(),
    clearThreads: async (before, after, limit) => db.transaction(() => clear(before, after, limit)).immediate(),
  };
  return {
    exclusive: (sweep) => sweep(ops),
    async close() {
      db.close();
    },
  };
}
