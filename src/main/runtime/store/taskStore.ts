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
import type Database from 'better-sqlite3';
import type { Task, TaskState } from '@a2a-js/sdk';
import type { TaskStore } from '@a2a-js/sdk/server';
import { writeBatch, type WriteBatch } from './write-batch.ts';

export const TASK_FLUSH_MS = 20;
const FINAL: readonly TaskState[] = ['completed', 'failed', 'canceled', 'rejected'];
/** States a reader must see at once: final ones and those waiting for the client. */
const SETTLED: ReadonlySet<TaskState> = new Set<TaskState>([...FINAL, 'input-required', 'auth-required']);
const FINAL_SQL = FINAL.map((s) => `'${s}'`).join(', ');

export class SqliteTaskStore implements TaskStore {
  private readonly saveStmt;
  private readonly saveInProgressStmt;
  private readonly loadStmt;
  /** Tasks written by this store and not settled yet: their in-progress updates may wait. */
  private readonly inProgress = new Set<string>();
  /** Newest unwritten content per task. */
  private readonly pending = new Map<string, Task>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The connection's group commit (write-batch.ts): a task's writes share a commit with the
   * request's checkpoint and transcript and with the other requests' writes. */
  private readonly writes: WriteBatch;

  constructor(db: Database.Database) {
    this.writes = writeBatch(db);
    // Prepared once; save overwrites, as the TaskStore contract requires.
    // The state lives in its own column (migration 3): queries never parse task documents.
    const upsert = `INSERT INTO a2a_tasks (task_id, context_id, state, task, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, task = excluded.task, updated_at = excluded.updated_at`;
    this.saveStmt = db.prepare(upsert);
    this.saveInProgressStmt = db.prepare(`${upsert} WHERE a2a_tasks.state IS NULL OR a2a_tasks.state NOT IN (${FINAL_SQL})`);
    this.loadStmt = db.prepare('SELECT task FROM a2a_tasks WHERE task_id = ?').pluck();
  }

  async save(task: Task): Promise<void> {
    if (this.closed) throw new Error('the task store is closed');
    const settled = SETTLED.has(task.status.state);
    if (!settled && this.inProgress.has(task.id)) {
      this.pending.set(task.id, task);
      this.timer ??= setTimeout(() => this.flush(), TASK_FLUSH_MS).unref();
      return;
    }
    this.pending.delete(task.id);
    if (settled) this.inProgress.delete(task.id);
    else this.inProgress.add(task.id);
    const stmt = settled ? this.saveStmt : this.saveInProgressStmt;
    // Serialised now: the SDK goes on changing the task object after save() returns.
    const row = [task.id, task.contextId ?? null, task.status.state, JSON.stringify(task), new Date().toISOString()];
    try {
      await this.writes.run(() => stmt.run(...row));
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
    const now = new Date().toISOString();
    const rows = tasks.map((t) => [t.id, t.contextId ?? null, t.status.state, JSON.stringify(t), now] as const);
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

  /** Queues what is pending and refuses later saves; the store commits the queue and closes. */
  close(): void {
    this.closed = true;
    this.flush();
  }
}
