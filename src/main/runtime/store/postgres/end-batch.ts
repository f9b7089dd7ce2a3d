// Group commit for the PostgreSQL memory store (docs/decisions.md D-84), the counterpart of
// the SQLite store's write batch (store/write-batch.ts, D-39). A turn's end writes (its
// checkpoint and blobs, its transcript messages, its task's in-progress and settled states)
// and those of every request running beside it are written by ONE statement, one round trip
// and one commit: each family of rows goes in as parallel arrays (unnest), thread claims and
// ownership checked in the same statement. A statement of this shape is prepared once per
// connection (a named statement) and only its arrays change.
//
// Two kinds of writes:
//   - `later`: resolves at once; written with the next commit (a turn's checkpoint, transcript
//     and in-progress task states: nothing is answered on them);
//   - `now`: resolves once written (a task's settled state: the answer a client waits for).
//     It carries every `later` write queued before it, so a turn's answer goes out only once
//     its checkpoint and transcript are stored (no acknowledged turn lost, D-50).
// A `later` write is also committed within LATER_MS when no `now` write comes.
// A write that fails is not lost silently: the batch is retried write by write on the slow
// paths, and a thread whose `later` write failed fails the next `now` write of that thread
// (its task's settled save: the turn is then not acknowledged, a2a/settling.ts).
import type pg from 'pg';

/** The longest a `later` write waits for a `now` write to carry it. */
export const LATER_MS = 20;

export interface BlobRow {
  thread: string;
  ns: string;
  channel: string;
  version: string;
  type: string;
  blob: Uint8Array | null;
}
export interface CheckpointRow {
  thread: string;
  ns: string;
  id: string;
  parent: string | null;
  /** JSON text. */
  checkpoint: string;
  /** JSON text. */
  metadata: string;
}
export interface TaskRow {
  id: string;
  context: string | null;
  state: string;
  task: string;
  /** The push notification this state makes (its event key): an outbox row per configuration
   * of the task, in the same statement (push/service.ts, D-110). */
  notify?: string;
}

/** One write: its rows, the agent that must own its thread (claimed when free), and the slow
 * path that writes it alone (the batch failed). */
export interface EndWrite {
  thread?: string;
  agent?: string;
  blobs?: BlobRow[];
  checkpoint?: CheckpointRow;
  transcript?: string[];
  task?: TaskRow;
  /** Told how many outbox rows `task.notify` added, once committed. */
  pushed?: (n: number) => void;
  slow: () => Promise<void>;
}

interface Queued {
  w: EndWrite;
  now: boolean;
  resolve: () => void;
  reject: (err: unknown) => void;
}

const FINAL = `'completed', 'failed', 'canceled', 'rejected'`;
const SETTLED = `${FINAL}, 'input-required', 'auth-required'`;

export function endSql(s: string): string {
  const owned = (t: string, a: string) => `EXISTS (SELECT 1 FROM owners o WHERE o.thread_id = ${t} AND o.agent_id = ${a})`;
  return `WITH claims AS (
    INSERT INTO ${s}.threads (thread_id, agent_id) SELECT DISTINCT ON (t) t, a FROM unnest($1::text[], $2::text[]) AS x(t, a)
    ON CONFLICT (thread_id) DO NOTHING RETURNING thread_id, agent_id
  ), owners AS (
    SELECT thread_id, agent_id FROM claims UNION ALL SELECT thread_id, agent_id FROM ${s}.threads WHERE thread_id = ANY($1::text[])
  ), b AS (
    INSERT INTO ${s}.checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob)
    SELECT x.t, x.ns, x.ch, x.v, x.ty, x.b FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bytea[], $9::text[]) AS x(t, ns, ch, v, ty, b, a)
    WHERE ${owned('x.t', 'x.a')} ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING
  ), c AS (
    INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata)
    SELECT x.t, x.ns, x.id, x.p, x.cp, x.md FROM unnest($10::text[], $11::text[], $12::text[], $13::text[], $14::jsonb[], $15::jsonb[], $16::text[]) AS x(t, ns, id, p, cp, md, a)
    WHERE ${owned('x.t', 'x.a')}
    ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, metadata = EXCLUDED.metadata
  ), tr AS (
    INSERT INTO ${s}.persistent_memory (agent_id, thread_id, key, value, updated_at)
    SELECT x.a, x.t, 'transcript:' || lpad((coalesce(substr(last.key, 12)::bigint, 0) + x.i)::text, 12, '0'), x.v, now()
    FROM unnest($17::text[], $18::text[], $19::int[], $20::text[]) AS x(a, t, i, v)
    LEFT JOIN LATERAL (
      SELECT pm.key FROM ${s}.persistent_memory pm
      WHERE pm.agent_id = x.a AND pm.thread_id = x.t AND pm.key >= 'transcript:' AND pm.key < 'transcript;' ORDER BY pm.key DESC LIMIT 1
    ) last ON true
    WHERE ${owned('x.t', 'x.a')}
  ), tk AS (
    INSERT INTO ${s}.a2a_tasks (task_id, context_id, state, task, updated_at, replica, lease_until)
    SELECT x.id, x.ctx, x.st, x.task, now(), $25, CASE WHEN x.st IN ('submitted', 'working') THEN now() + $26 * interval '1 millisecond' END
    FROM unnest($21::text[], $22::text[], $23::text[], $24::text[]) AS x(id, ctx, st, task)
    ON CONFLICT (task_id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state, task = excluded.task,
      updated_at = excluded.updated_at, replica = excluded.replica, lease_until = excluded.lease_until
    WHERE excluded.state IN (${SETTLED}) OR ${s}.a2a_tasks.state IS NULL OR ${s}.a2a_tasks.state NOT IN (${FINAL})
  ), po AS (
    INSERT INTO ${s}.push_outbox (task_id, config_id, event_key, config, body, next_at, created_at)
    SELECT pc.task_id, pc.config_id, x.k, pc.config, coalesce(x.body, ($24::text[])[x.ti]), now(), now()
    FROM unnest($27::text[], $28::text[], $29::text[], $30::int[]) AS x(id, k, body, ti) JOIN ${s}.push_configs pc ON pc.task_id = x.id
    ON CONFLICT (task_id, config_id, event_key) DO NOTHING RETURNING task_id
  )
  SELECT thread_id, agent_id FROM owners UNION ALL SELECT NULL, task_id FROM po`;
}

export class PgEndBatch {
  private queue: Queued[] = [];
  private soon: NodeJS.Immediate | undefined;
  private later: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();
  /** Threads whose `later` write failed, with the error their next `now` write fails with. */
  private readonly failedThreads = new Map<string, unknown>();
  private readonly sql: { name: string; text: string };
  /** Statements run and the writes they carried (for tests and the bench). */
  readonly stats = { commits: 0, writes: 0 };
  private closed = false;
  /** In-progress task states not written (the database unreachable), tried again later. */
  private retry: Queued[] = [];

  constructor(
    private readonly pool: pg.Pool,
    schemaSql: string,
    private readonly lease: { replica: string; leaseMs: number; log?: { warn(obj: object, msg: string): void } },
  ) {
    this.sql = { name: `end-batch-${schemaSql}`, text: endSql(schemaSql) };
  }

  /** Queues `w` for the next commit and resolves at once. */
  writeLater(w: EndWrite): void {
    this.queue.push({ w, now: false, resolve: () => undefined, reject: () => undefined });
    this.later ??= setTimeout(() => void this.flush(), LATER_MS).unref();
  }

  /** Queues `w` and resolves once it is committed (with every write queued before it). */
  writeNow(w: EndWrite): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ w, now: true, resolve, reject });
      this.soon ??= setImmediate(() => void this.flush());
    });
  }

  /** Threads with checkpoint or transcript writes in a statement not yet committed, with how
   * many such batches. */
  private readonly committing = new Map<string, number>();

  /** Whether checkpoint or transcript writes of `thread` are not committed yet: waiting in the
   * queue, or in a batch on its way to the database (a read on another connection would not see
   * them, D-116). Task states are read from the task store's own copy. */
  pending(thread: string): boolean {
    return this.committing.has(thread) || this.queue.some((q) => q.w.thread === thread);
  }

  /** Commits everything queued now; resolves once written (or failed). Never rejects. */
  flush(): Promise<void> {
    if (this.soon) clearImmediate(this.soon);
    clearTimeout(this.later);
    this.soon = undefined;
    this.later = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return this.chain;
    const threads = [...new Set(batch.flatMap((q) => (q.w.thread === undefined ? [] : [q.w.thread])))];
    for (const t of threads) this.committing.set(t, (this.committing.get(t) ?? 0) + 1);
    // Batches commit one after the other, in the order they were queued.
    this.chain = this.chain
      .then(() => this.write(batch))
      .finally(() => {
        for (const t of threads) {
          const n = (this.committing.get(t) ?? 1) - 1;
          if (n > 0) this.committing.set(t, n);
          else this.committing.delete(t);
        }
      });
    return this.chain;
  }

  /** Writes what is queued; in-progress task states that cannot be written then are dropped
   * (counted in a warning): each task's settled state is written by its own save. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async write(batch: Queued[]): Promise<void> {
    await this.written(batch);
    const retry = this.retry;
    this.retry = [];
    if (retry.length === 0) return;
    if (this.closed) {
      this.lease.log?.warn({ tasks: retry.length }, 'in-progress task updates not written at close');
      return;
    }
    // Before anything queued since: a newer state of the same task must win.
    this.queue.unshift(...retry);
    this.later ??= setTimeout(() => void this.flush(), LATER_MS * 10).unref();
  }

  private async written(batch: Queued[]): Promise<void> {
    try {
      const { owners, pushed } = await this.statement(batch.map((q) => q.w));
      this.stats.commits += 1;
      this.stats.writes += batch.length;
      for (const q of batch) {
        const { thread, agent } = q.w;
        if (thread !== undefined && agent !== undefined && owners.get(thread) !== agent) await this.alone(q);
        else {
          if (q.w.task?.notify !== undefined) q.w.pushed?.(pushed.get(q.w.task.id) ?? 0);
          this.settle(q, null);
        }
      }
    } catch {
      // One write made the statement fail (or the database did): each alone, in order.
      for (const q of batch) await this.alone(q);
    }
  }

  /** Writes `q` on its slow path (which throws the write's own error, e.g. ownership). */
  private async alone(q: Queued): Promise<void> {
    try {
      await q.w.slow();
      this.settle(q, null);
    } catch (err) {
      if (!q.now && q.w.thread === undefined && q.w.task) this.retry.push(q);
      else this.settle(q, err ?? new Error('write failed'));
    }
  }

  private settle(q: Queued, err: unknown): void {
    const thread = q.w.thread ?? q.w.task?.context ?? undefined;
    if (err === null && thread !== undefined && q.now && this.failedThreads.has(thread)) {
      err = this.failedThreads.get(thread);
      this.failedThreads.delete(thread);
    }
    if (err === null) return q.resolve();
    // A lost checkpoint or transcript fails its turn's answer; a lost in-progress state does not.
    if (!q.now && q.w.thread !== undefined) this.failedThreads.set(q.w.thread, err);
    q.reject(err);
  }

  /** The batch's statement; resolves to the owner of every thread it names and the outbox
   * rows added per task. */
  private async statement(writes: EndWrite[]): Promise<{ owners: Map<string, string>; pushed: Map<string, number> }> {
    const claims: [string[], string[]] = [[], []];
    const b: unknown[][] = [[], [], [], [], [], [], []];
    const c: unknown[][] = [[], [], [], [], [], [], []];
    const tr: unknown[][] = [[], [], [], []];
    const seq = new Map<string, number>();
    const tasks = new Map<string, TaskRow>();
    const checkpoints = new Map<string, [CheckpointRow, string]>();
    for (const w of writes) {
      if (w.thread !== undefined && w.agent !== undefined) {
        claims[0].push(w.thread);
        claims[1].push(w.agent);
        for (const r of w.blobs ?? [])
          [r.thread, r.ns, r.channel, r.version, r.type, r.blob ? Buffer.from(r.blob) : null, w.agent].forEach((v, i) => b[i].push(v));
        if (w.checkpoint) checkpoints.set(JSON.stringify([w.checkpoint.thread, w.checkpoint.ns, w.checkpoint.id]), [w.checkpoint, w.agent]);
        for (const v of w.transcript ?? []) {
          const key = `${w.agent}\u0000${w.thread}`;
          const i = (seq.get(key) ?? 0) + 1;
          seq.set(key, i);
          [w.agent, w.thread, i, v].forEach((x, k) => tr[k].push(x));
        }
      }
      if (w.task) tasks.set(w.task.id, w.task); // the newest state of a task in the batch wins
    }
    for (const [r, agent] of checkpoints.values()) [r.thread, r.ns, r.id, r.parent, r.checkpoint, r.metadata, agent].forEach((v, i) => c[i].push(v));
    const t = [...tasks.values()];
    // Notifications, each with its own state's JSON unless it is the task row written (then
    // its index there: the body is not sent twice).
    const po: unknown[][] = [[], [], [], []];
    for (const w of writes) {
      if (w.task?.notify === undefined) continue;
      const same = tasks.get(w.task.id) === w.task;
      [w.task.id, w.task.notify, same ? null : w.task.task, same ? t.indexOf(w.task) + 1 : null].forEach((v, i) => po[i].push(v));
    }
    const values = [
      ...claims,
      ...b,
      ...c,
      ...tr,
      t.map((x) => x.id),
      t.map((x) => x.context),
      t.map((x) => x.state),
      t.map((x) => x.task),
      this.lease.replica,
      this.lease.leaseMs,
      ...po,
    ];
    const r = await this.pool.query<{ thread_id: string | null; agent_id: string }>({ ...this.sql, values });
    const owners = new Map<string, string>();
    const pushed = new Map<string, number>();
    for (const row of r.rows) {
      if (row.thread_id !== null) owners.set(row.thread_id, row.agent_id);
      else pushed.set(row.agent_id, (pushed.get(row.agent_id) ?? 0) + 1);
    }
    return { owners, pushed };
  }
}
