// Durable A2A task store: tasks/get must answer for a task created before a restart, so tasks
// live in the memory store's database (table a2a_tasks) instead of process memory.
import type Database from 'better-sqlite3';
import type { Task } from '@a2a-js/sdk';
import type { TaskStore } from '@a2a-js/sdk/server';

export class SqliteTaskStore implements TaskStore {
  private readonly saveStmt;
  private readonly loadStmt;

  constructor(db: Database.Database) {
    // Prepared once; save overwrites, as the TaskStore contract requires.
    this.saveStmt = db.prepare(
      `INSERT INTO a2a_tasks (task_id, context_id, task, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, task = excluded.task, updated_at = excluded.updated_at`,
    );
    this.loadStmt = db.prepare('SELECT task FROM a2a_tasks WHERE task_id = ?').pluck();
  }

  async save(task: Task): Promise<void> {
    // A single statement is atomic on its own; no explicit transaction needed.
    this.saveStmt.run(task.id, task.contextId ?? null, JSON.stringify(task), new Date().toISOString());
  }

  async load(taskId: string): Promise<Task | undefined> {
    const raw = this.loadStmt.get(taskId) as string | undefined;
    return raw === undefined ? undefined : (JSON.parse(raw) as Task);
  }
}
