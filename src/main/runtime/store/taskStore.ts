// Durable A2A task store: tasks/get must answer for a task created before a restart, so tasks
// live in the memory store's database (table a2a_tasks) instead of process memory.
//
// The SDK saves the whole task after every event, including every streamed chunk, so a long
// streamed answer would rewrite a growing JSON document hundreds of times. Writes are
// therefore split by what a reader must not miss:
//   - the first save of a task and every save that settles it (a final state, or
//     input-required / auth-required) are written at once, before save() resolves;
//   - in-progress updates (submitted -> working, artifact chunks) of a task already written
//     are coalesced and written at most TASK_FLUSH_MS later, newest content only.
// A reader in this process always sees the newest content (load() looks at the pending
// updates first); a reader in another process may see an in-progress task up to
// TASK_FLUSH_MS behind. An in-progress write never overwrites a task in a final state
// (completed, failed, canceled, rejected): A2A never reopens one, so such a write is late.
//
// Processes sharing the file (`--workers N`) hold leases as replicas do on PostgreSQL
// (postgres/taskStore.ts, docs/deployment.md "Replicas"): a task in progress names the
// replica running it and a lease renewed every LEASE/3; a dead process's tasks are failed
// (UPSTREAM_UNAVAILABLE, replica_lost) by whichever process sees the lease run out; a cancel
// asked by another process is a flag seen at the next renewal.
import { randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { Task, TaskState } from '@a2a-js/sdk';
import type { TaskStore } from '@a2a-js/sdk/server';
import { writeBatch, type WriteBatch } from './write-batch.ts';
import { SQLITE_ENQUEUE_SQL } from './push-store.ts';
import type { LeaseOptions } from './postgres/taskStore.ts';

export const TASK_FLUSH_MS = 20;
const FINAL: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];
/** States a reader must see at once: final ones and those waiting for the client. */
const SETTLED: ReadonlySet<TaskState> = new Set<TaskState>([...FINAL, 'input-required', 'auth-required']);
const FINAL_SQL = FINAL.map((s) => `'${s}'`).join(', ');
const RUNNING_SQL = `state IN ('submitted', 'working')`;

/** The task as the reaper leaves it: failed, naming the replica that stopped (the same
 * document PostgreSQL's reaper writes). */
export function replicaLostTask(task: Task, replica: string | null): Task {
  const text = 'The replica running this task stopped before it finished.';
  const data = { errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'replica_lost', errorMessage: text, retriable: true, replica };
  return {
    ...task,
    status: {
      state: 'failed',
      timestamp: new Date().toISOString(),
      message: {
        kind: 'message',
        role: 'agent',
        messageId: randomUUID(),
        taskId: task.id,
        contextId: task.contextId,
        parts: [
          { kind: 'text', text },
          { kind: 'data', data },
        ],
      },
    },
  };
}

export class SqliteTaskStore implements TaskStore {
  private readonly saveStmt;
  private readonly saveInProgressStmt;
  private readonly loadStmt;
  /** The push outbox's insert (push-store.ts), prepared at the first save carrying a notification. */
  private enqueueStmt: Database.Statement | undefined;
  private readonly leaseStmt;
  private heartbeat: NodeJS.Timeout | undefined;
  /** Tasks written by this store and not settled yet: their in-progress updates may wait. */
  private readonly inProgress = new Set<string>();
  /** Newest unwritten content per task. */
  private readonly pending = new Map<string, Task>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The connection's group commit (write-batch.ts): a task's writes share a commit with the
   * request's checkpoint and transcript and with the other requests' writes. */
  private readonly writes: WriteBatch;

  constructor(
    private readonly db: Database.Database,
    private readonly lease: LeaseOptions,
  ) {
    this.writes = writeBatch(db);
    // Prepared once; save overwrites, as the TaskStore contract requires.
    // The state lives in its own column (migration 3): queries never parse task documents.
    // A task in progress carries this replica and its lease (migration 6).
    const upsert = `INSERT INTO a2a_tasks (task_id, context_id, state, task, updated_at, replica, lease_until)
       VALUES (?, ?, ?, ?, ?, ?, CASE WHEN ? IN ('submitted', 'working') THEN ? END)
       ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, task = excluded.task, updated_at = excluded.updated_at,
         replica = excluded.replica, lease_until = excluded.lease_until`;
    this.saveStmt = db.prepare(upsert);
    this.saveInProgressStmt = db.prepare(`${upsert} WHERE a2a_tasks.state IS NULL OR a2a_tasks.state NOT IN (${FINAL_SQL})`);
    this.loadStmt = db.prepare('SELECT task FROM a2a_tasks WHERE task_id = ?').pluck();
    this.leaseStmt = {
      running: db.prepare(`SELECT replica FROM a2a_tasks WHERE task_id = ? AND ${RUNNING_SQL}`).pluck(),
      cancel: db.prepare(`UPDATE a2a_tasks SET cancel_requested = 1 WHERE task_id = ? AND ${RUNNING_SQL}`),
      renew: db.prepare(
        `UPDATE a2a_tasks SET lease_until = ?, replica = ? WHERE task_id IN (SELECT value FROM json_each(?)) AND ${RUNNING_SQL} RETURNING task_id, cancel_requested`,
      ),
      expired: db.prepare(`SELECT task_id, task, replica FROM a2a_tasks WHERE ${RUNNING_SQL} AND lease_until < ? AND replica IS NOT ?`),
      reap: db.prepare(
        `UPDATE a2a_tasks SET state = 'failed', task = ?, lease_until = NULL, updated_at = ? WHERE task_id = ? AND ${RUNNING_SQL} AND lease_until < ?`,
      ),
    };
    this.heartbeat = setInterval(() => void this.beat(), Math.max(50, Math.floor(lease.leaseMs / 3))).unref();
  }

  private row(task: Task, now: Date): unknown[] {
    // Serialised now: the SDK goes on changing the task object after save() returns.
    const { state } = task.status;
    return [task.id, task.contextId ?? null, state, JSON.stringify(task), now.toISOString(), this.lease.replica, state, now.getTime() + this.lease.leaseMs];
  }

  save(task: Task): Promise<void> {
    return this.put(task).then(() => undefined);
  }

  /** save() of a state that makes a push notification (`key`, push/service.ts): the outbox rows,
   * one per configuration of the task, are written in the task's own transaction, with the JSON
   * the task row gets (as PostgreSQL's does, D-110; D-114): no second serialisation, no read
   * and commit of their own. Resolves to how many rows were added. */
  saveNotifying(task: Task, key: string): Promise<number> {
    return this.put(task, key);
  }

  private async put(task: Task, key?: string): Promise<number> {
    if (this.closed) throw new Error('the task store is closed');
    const settled = SETTLED.has(task.status.state);
    if (!settled && this.inProgress.has(task.id)) {
      this.pending.set(task.id, task);
      this.timer ??= setTimeout(() => this.flush(), TASK_FLUSH_MS).unref();
      return 0;
    }
    this.pending.delete(task.id);
    if (settled) this.inProgress.delete(task.id);
    else this.inProgress.add(task.id);
    const stmt = settled ? this.saveStmt : this.saveInProgressStmt;
    const row = this.row(task, new Date());
    const enqueue = key === undefined ? undefined : (this.enqueueStmt ??= this.db.prepare(SQLITE_ENQUEUE_SQL));
    try {
      return await this.writes.run(() => {
        stmt.run(...row);
        return enqueue ? enqueue.run({ task: task.id, key, body: row[3], now: Date.now() }).changes : 0;
      });
    } catch (err) {
      this.inProgress.delete(task.id); // not written: its next save is written at once again
      throw err;
    }
  }

  async load(taskId: string): Promise<Task | undefined> {
    const newest = this.pending.get(taskId);
    // A copy made the way the stored one is, so a reader here sees what one elsewhere sees.
    if (newest) return JSON.parse(JSON.stringify(newest)) as Task;
    const raw = this.loadStmt.get(taskId) as string | undefined;
    return raw === undefined ? undefined : (JSON.parse(raw) as Task);
  }

  /** Queues every pending in-progress update for the next group commit (the timer calls it).
   * A failed commit (the database busy beyond its timeout) keeps the updates for the next try. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const tasks = [...this.pending.values()];
    this.pending.clear();
    const now = new Date();
    const rows = tasks.map((t) => this.row(t, now));
    this.writes
      .run(() => rows.map((row) => this.saveInProgressStmt.run(...row).changes))
      .then((changes) => {
        changes.forEach((n, i) => {
          if (n === 0) this.inProgress.delete(tasks[i].id); // already final: settled elsewhere
        });
      })
      .catch(() => {
        for (const t of tasks) if (!this.pending.has(t.id)) this.pending.set(t.id, t);
        if (!this.closed) this.timer = setTimeout(() => this.flush(), TASK_FLUSH_MS * 10).unref();
      });
  }

  /** Which replica runs a task in progress, or null (ended, waiting, or not known). */
  async runningReplica(taskId: string): Promise<string | null> {
    return (this.leaseStmt.running.get(taskId) as string | null | undefined) ?? null;
  }

  /** Asks the replica running the task to cancel it (seen at its next renewal). */
  async requestCancel(taskId: string): Promise<boolean> {
    return (await this.writes.run(() => this.leaseStmt.cancel.run(taskId).changes)) > 0;
  }

  /** Renews this replica's leases, picks up cancels asked elsewhere, and fails the tasks of
   * replicas whose lease ran out (one commit; none when there is nothing to do: an idle
   * runtime does not take the write lock every beat). */
  async beat(): Promise<void> {
    if (this.closed) return;
    const { replica, leaseMs } = this.lease;
    try {
      type Expired = { task_id: string; task: string; replica: string | null };
      const expired = this.leaseStmt.expired.all(Date.now(), replica) as Expired[];
      if (this.inProgress.size === 0 && expired.length === 0) return;
      const ids = JSON.stringify([...this.inProgress]);
      const { cancels, reaped } = await this.writes.run(() => {
        const now = Date.now();
        const renewed = this.leaseStmt.renew.all(now + leaseMs, replica, ids) as { task_id: string; cancel_requested: number }[];
        const lost: Task[] = [];
        for (const r of expired) {
          const failed = replicaLostTask(JSON.parse(r.task) as Task, r.replica);
          // Only if still running with an expired lease (another process may have reaped it).
          if (this.leaseStmt.reap.run(JSON.stringify(failed), new Date(now).toISOString(), r.task_id, now).changes) lost.push(failed);
        }
        return { cancels: renewed.filter((r) => r.cancel_requested).map((r) => r.task_id), reaped: lost };
      });
      if (cancels.length) this.lease.onCancelRequested?.(cancels);
      if (reaped.length) this.lease.onReaped?.(reaped);
    } catch (err) {
      this.lease.log?.warn({ err: (err as Error).message }, 'task lease renewal failed; retrying');
    }
  }

  /** Queues what is pending and refuses later saves; the store commits the queue and closes.
   * Leases of tasks still running here are left to expire (their runs end with this process). */
  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.flush();
  }
}
