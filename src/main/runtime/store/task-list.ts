// A page of an agent's stored A2A tasks, newest change first (A2A 1.0 ListTasks, D-87). The
// tasks are those of the agent's threads (a task's contextId is its thread); with `user`, only
// the threads of that user (docs/security.md, "Whose conversation is whose"). One query shape
// for both stores: a filter on the thread's owner, the context, the state and the last change,
// then a count and a page by offset.
import type Database from 'better-sqlite3';
import type { Task } from '@a2a-js/sdk';

export interface TaskListQuery {
  /** Only this user's threads; undefined for every thread of the agent. */
  user?: string;
  contextId?: string;
  /** A2A 0.3 state name (completed, input-required, …). */
  state?: string;
  /** Only tasks changed after this instant (ISO 8601). */
  updatedAfter?: string;
  limit: number;
  offset: number;
}

export interface TaskListPage {
  tasks: Task[];
  total: number;
}

const WHERE = (p: (name: string) => string) =>
  `t.agent_id = ${p('agent')} AND (${p('user')} IS NULL OR t.user_id = ${p('user')})
   AND (${p('context')} IS NULL OR a.context_id = ${p('context')}) AND (${p('state')} IS NULL OR a.state = ${p('state')})`;

/** SQLite: updated_at is an ISO 8601 text, compared as text. */
export function sqliteTaskList(db: Database.Database) {
  const where = `${WHERE((n) => `@${n}`)} AND (@after IS NULL OR a.updated_at > @after)`;
  const from = 'FROM a2a_tasks a JOIN threads t ON t.thread_id = a.context_id';
  const page = db.prepare(`SELECT a.task ${from} WHERE ${where} ORDER BY a.updated_at DESC, a.task_id DESC LIMIT @limit OFFSET @offset`).pluck();
  const count = db.prepare(`SELECT count(*) ${from} WHERE ${where}`).pluck();
  return (agentId: string, q: TaskListQuery): TaskListPage => {
    const args = { agent: agentId, user: q.user ?? null, context: q.contextId ?? null, state: q.state ?? null, after: q.updatedAfter ?? null };
    const rows = page.all({ ...args, limit: q.limit, offset: q.offset }) as string[];
    return { tasks: rows.map((r) => JSON.parse(r) as Task), total: count.get(args) as number };
  };
}

type Query = (sql: string, values: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/** PostgreSQL: updated_at is a timestamptz. */
export function postgresTaskList(q: Query, schema: string) {
  const names = ['agent', 'user', 'context', 'state', 'after'];
  const p = (n: string) => `$${names.indexOf(n) + 1}::text`;
  const where = `${WHERE(p)} AND ($5::timestamptz IS NULL OR a.updated_at > $5::timestamptz)`;
  const from = `FROM ${schema}.a2a_tasks a JOIN ${schema}.threads t ON t.thread_id = a.context_id`;
  return async (agentId: string, query: TaskListQuery): Promise<TaskListPage> => {
    const args = [agentId, query.user ?? null, query.contextId ?? null, query.state ?? null, query.updatedAfter ?? null];
    const [page, count] = await Promise.all([
      q(`SELECT a.task ${from} WHERE ${where} ORDER BY a.updated_at DESC, a.task_id DESC LIMIT $6 OFFSET $7`, [...args, query.limit, query.offset]),
      q(`SELECT count(*)::int AS n ${from} WHERE ${where}`, args),
    ]);
    return { tasks: page.rows.map((r) => JSON.parse(r.task as string) as Task), total: count.rows[0]?.n as number };
  };
}
