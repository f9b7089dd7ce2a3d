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
// TASK_FLUSH_MS behind. A settled row is never overwritten by a late in-progress write.
import type Database from 'better-sqlite3';
import type { Task, TaskState } from '@a2a-js/sdk';
import type { TaskStore } from '@a2a-js/sdk/server';

export const TASK_FLUSH_MS = 20;
const SETTLED: ReadonlySet<TaskState> = new Set<TaskState>(['completed', 'failed', 'canceled', 'rejected', 'input-required', 'auth-required']);
const SETTLED_SQL = [...SETTLED].map((s) => `'${s}'`).join(', ');

export class SqliteTaskStore implements TaskStore {
  private readonly saveStmt;
  private readonly saveInProgressStmt;
  private readonly loadStmt;
  /** Tasks written by this store and not settled yet: their in-progress updates may wait. */
  private readonly inProgress = new Set<string>();
  /** Newest unwritten content per task. */
  private readonly pending = new Map<string, Task>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly db: Database.Database) {
    // Prepared once; save overwrites, as the TaskStore contract requires.
    const upsert = `INSERT INTO a2a_tasks (task_id, context_id, task, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, task = excluded.task, updated_at = excluded.updated_at`;
    this.saveStmt = db.prepare(upsert);
    this.saveInProgressStmt = db.prepare(`${upsert} WHERE json_extract(a2a_tasks.task, '$.status.state') NOT IN (${SETTLED_SQL})`);
    this.loadStmt = db.prepare('SELECT task FROM a2a_tasks WHERE task_id = ?').pluck();
  }

  async save(task: Task): Promise<void> {
    const settled = SETTLED.has(task.status.state);
    if (!settled && this.inProgress.has(task.id)) {
      this.pending.set(task.id, task);
      this.timer ??= setTimeout(() => this.flush(), TASK_FLUSH_MS).unref();
      return;
    }
    this.pending.delete(task.id);
    if (settled) this.inProgress.delete(task.id);
    else this.inProgress.add(task.id);
    this.saveStmt.run(task.id, task.contextId ?? null, JSON.stringify(task), new Date().toISOString());
  }

  async load(taskId: string): Promise<Task | undefined> {
    const newest = this.pending.get(taskId);
    if (newest) return structuredClone(newest);
    const raw = this.loadStmt.get(taskId) as string | undefined;
    return raw === undefined ? undefined : (JSON.parse(raw) as Task);
  }

  /** Writes every pending in-progress update in one transaction. Called by the timer and
   * when the store closes. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const tasks = [...this.pending.values()];
    this.pending.clear();
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (const t of tasks) this.saveInProgressStmt.run(t.id, t.contextId ?? null, JSON.stringify(t), now);
    })();
  }
}
