// Durable A2A tasks on PostgreSQL, shared by every replica (tasks/get finds a task created
// elsewhere). Same write policy as the SQLite store (store/taskStore.ts): the first save (the
// start record the lease needs) and every settling save are written before save() resolves,
// in-progress updates are coalesced. Updates and settling saves go through the store's group
// commit (end-batch.ts, D-84): a settling save carries its turn's checkpoint and transcript.
//
// Replicas: a task in progress records the replica running it and a lease that replica
// renews every LEASE/3. A replica that dies (kill -9) stops renewing; once its lease has run
// out, any replica's reaper fails the task with UPSTREAM_UNAVAILABLE, reason replica_lost
// (docs/deployment.md). A cancel asked on another replica is a flag in the row, which the
// running replica sees at its next renewal and acts on.
import type pg from 'pg';
import type { Task, TaskState } from '@a2a-js/sdk';
import type { TaskStore } from '@a2a-js/sdk/server';
import type { EndWrite, PgEndBatch } from './end-batch.ts';
import { enqueueSql } from './push.ts';

export const TASK_FLUSH_MS = 20;
const FINAL: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];
const SETTLED: ReadonlySet<TaskState> = new Set<TaskState>([...FINAL, 'input-required', 'auth-required']);
const FINAL_SQL = FINAL.map((s) => `'${s}'`).join(', ');

/** A save's push notification: its event key, and who is told how many outbox rows it added. */
interface Notify {
  key: string;
  pushed: (n: number) => void;
}

export interface LeaseOptions {
  /** This process's replica id. */
  replica: string;
  /** How long a lease lasts without renewal. */
  leaseMs: number;
  /** Tasks of this replica whose cancel was asked elsewhere. */
  onCancelRequested?: (taskIds: string[]) => void;
  /** Tasks this replica's reaper failed (their replica died). */
  onReaped?: (tasks: Task[]) => void;
  log?: { warn(obj: object, msg: string): void };
}

export class PgTaskStore implements TaskStore {
  private readonly upsert: string;
  private readonly upsertInProgress: string;
  private readonly loadSql: string;
  private readonly enqueueSql: string;
  private readonly inProgress = new Set<string>();
  /** The newest in-progress state saved here, per task (load answers with it). */
  private readonly pending = new Map<string, Task>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly db: pg.Pool,
    private readonly schema: string,
    private readonly lease: LeaseOptions,
    private readonly batch: PgEndBatch,
  ) {
    const cols = `(task_id, context_id, state, task, updated_at, replica, lease_until)`;
    const values = `($1, $2, $3, $4, now(), $5, CASE WHEN $3 IN ('submitted', 'working') THEN now() + $6 * interval '1 millisecond' END)`;
    const set = `context_id = excluded.context_id, state = excluded.state, task = excluded.task, updated_at = excluded.updated_at,
      replica = excluded.replica, lease_until = excluded.lease_until`;
    this.upsert = `INSERT INTO ${schema}.a2a_tasks ${cols} VALUES ${values} ON CONFLICT (task_id) DO UPDATE SET ${set}`;
    this.upsertInProgress = `${this.upsert} WHERE ${schema}.a2a_tasks.state IS NULL OR ${schema}.a2a_tasks.state NOT IN (${FINAL_SQL})`;
    this.loadSql = `SELECT task FROM ${schema}.a2a_tasks WHERE task_id = $1`;
    this.enqueueSql = enqueueSql(schema);

    this.heartbeat = setInterval(() => void this.beat(), Math.max(50, Math.floor(lease.leaseMs / 3))).unref();
  }

  private args(task: Task): unknown[] {
    return [task.id, task.contextId ?? null, task.status.state, JSON.stringify(task), this.lease.replica, this.lease.leaseMs];
  }

  private write(task: Task, settled: boolean, notify?: Notify): EndWrite {
    const json = JSON.stringify(task);
    return {
      task: { id: task.id, context: task.contextId ?? null, state: task.status.state, task: json, ...(notify ? { notify: notify.key } : {}) },
      ...(notify ? { pushed: notify.pushed } : {}),
      slow: async () => {
        await this.db.query(settled ? this.upsert : this.upsertInProgress, this.args(task));
        if (notify) notify.pushed(await this.enqueueAlone(task.id, notify.key, json));
      },
    };
  }

  /** The notification's outbox rows written on their own (the batch failed); a failure is
   * logged, as push/service.ts does: the task itself is saved. */
  private async enqueueAlone(taskId: string, key: string, body: string): Promise<number> {
    try {
      return (await this.db.query(this.enqueueSql, [taskId, key, body])).rowCount ?? 0;
    } catch (err) {
      this.lease.log?.warn({ task_id: taskId, err: (err as Error).message }, 'push notification not written');
      return 0;
    }
  }

  /** save() of a state that makes a push notification (`key`, push/service.ts): the outbox
   * rows, one per configuration of the task, go in the same statement as the task's state
   * (D-110). Resolves to how many were added. */
  async saveNotifying(task: Task, key: string): Promise<number> {
    let added = 0;
    await this.put(task, { key, pushed: (n) => (added = n) });
    return added;
  }

  save(task: Task): Promise<void> {
    return this.put(task);
  }

  private async put(task: Task, notify?: Notify): Promise<void> {
    if (this.closed) throw new Error('the task store is closed');
    const settled = SETTLED.has(task.status.state);
    if (!settled && this.inProgress.has(task.id)) {
      // Coalesced: written with the next commit of the group (the batch keeps the newest).
      this.pending.set(task.id, task);
      this.batch.writeLater(this.write(task, false));
      return;
    }
    this.pending.delete(task.id);
    if (settled) this.inProgress.delete(task.id);
    else this.inProgress.add(task.id);
    try {
      // Both group-committed with the requests running beside it (the start record included:
      // concurrent requests share its commit); in order after every state queued before.
      await this.batch.writeNow(this.write(task, settled, notify));
    } catch (err) {
      // Not written: its next save is written at once again, and no lease is renewed for it.
      this.inProgress.delete(task.id);
      throw err;
    }
  }

  async load(taskId: string): Promise<Task | undefined> {
    const newest = this.pending.get(taskId);
    if (newest) return JSON.parse(JSON.stringify(newest)) as Task;
    const row = (await this.db.query<{ task: string }>(this.loadSql, [taskId])).rows[0];
    return row ? (JSON.parse(row.task) as Task) : undefined;
  }

  /** Which replica runs a task in progress, or null (ended, waiting, or not known). */
  async runningReplica(taskId: string): Promise<string | null> {
    const row = (
      await this.db.query<{ replica: string | null }>(`SELECT replica FROM ${this.schema}.a2a_tasks WHERE task_id = $1 AND state IN ('submitted', 'working')`, [
        taskId,
      ])
    ).rows[0];
    return row?.replica ?? null;
  }

  /** Asks the replica running the task to cancel it (seen at its next renewal). */
  async requestCancel(taskId: string): Promise<boolean> {
    const r = await this.db.query(`UPDATE ${this.schema}.a2a_tasks SET cancel_requested = true WHERE task_id = $1 AND state IN ('submitted', 'working')`, [
      taskId,
    ]);
    return (r.rowCount ?? 0) > 0;
  }

  /** Writes every pending in-progress update (the timer calls it). Never rejects: updates
   * that could not be written (the database unreachable) are kept and tried again later;
   * once closed, they are dropped and counted in the warning (each task's final state is
   * written by its own save, a2a/settling.ts). */
  flush(): Promise<void> {
    return this.batch.flush();
  }

  /** Renews this replica's leases, picks up cancels asked elsewhere, and fails the tasks of
   * replicas whose lease ran out. */
  async beat(): Promise<void> {
    if (this.closed) return;
    try {
      const ids = [...this.inProgress];
      if (ids.length > 0) {
        const renewed = await this.db.query<{ task_id: string; cancel_requested: boolean }>(
          `UPDATE ${this.schema}.a2a_tasks SET lease_until = now() + $3 * interval '1 millisecond', replica = $2
           WHERE task_id = ANY($1) AND state IN ('submitted', 'working') RETURNING task_id, cancel_requested`,
          [ids, this.lease.replica, this.lease.leaseMs],
        );
        const cancels = renewed.rows.filter((r) => r.cancel_requested).map((r) => r.task_id);
        if (cancels.length) this.lease.onCancelRequested?.(cancels);
      }
      const reaped = await this.db.query<{ task: string }>(
        `UPDATE ${this.schema}.a2a_tasks SET state = 'failed', updated_at = now(), lease_until = NULL,
           task = jsonb_set(task::jsonb, '{status}', jsonb_build_object('state', 'failed', 'timestamp', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'message', jsonb_build_object('kind', 'message', 'role', 'agent', 'messageId', gen_random_uuid()::text, 'taskId', task_id, 'contextId', context_id,
               'parts', jsonb_build_array(
                 jsonb_build_object('kind', 'text', 'text', 'The replica running this task stopped before it finished.'),
                 jsonb_build_object('kind', 'data', 'data', jsonb_build_object('errorCode', 'UPSTREAM_UNAVAILABLE', 'errorReason', 'replica_lost',
                   'errorMessage', 'The replica running this task stopped before it finished.', 'retriable', true, 'replica', replica))))))::text
         WHERE state IN ('submitted', 'working') AND lease_until < now() AND replica IS DISTINCT FROM $1
         RETURNING task`,
        [this.lease.replica],
      );
      if (reaped.rows.length) this.lease.onReaped?.(reaped.rows.map((r) => JSON.parse(r.task) as Task));
    } catch (err) {
      this.lease.log?.warn({ err: (err as Error).message }, 'task lease renewal failed; retrying');
    }
  }

  /** Writes what is pending and refuses later saves; leases of tasks still running here are
   * left to expire (their runs end with this process). */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.heartbeat);
    await this.batch.close();
  }
}
