// Group commit for the SQLite memory store (docs/decisions.md D-39). Every write of the store
// (checkpoints, pending writes, tasks, transcript, memory, deletes) is queued here and the queue is written
// in one IMMEDIATE transaction at the end of the event-loop turn, each write in a savepoint of
// its own. A request's writes and those of the requests running beside it share a commit, so
// the per-commit cost (WAL frames, locking) is paid once per batch, not once per write.
//
// What callers keep:
//   - a write's promise resolves after the transaction holding it has committed, and rejects
//     with the write's own error (its savepoint is rolled back, the others still commit);
//   - writes commit in the order they were queued, within a batch and across batches, so a
//     write queued after another is never visible before it;
//   - a failed commit (the database busy past its timeout, the disk full) rejects every write
//     of that batch and loses none written before.
import type Database from 'better-sqlite3';

interface Queued {
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}
type Outcome = { ok: true; value: unknown } | { ok: false; err: unknown };

export class WriteBatch {
  private queue: Queued[] = [];
  private scheduled: NodeJS.Immediate | undefined;
  /** Transactions run and the writes they carried (for tests). */
  readonly stats = { commits: 0, writes: 0 };

  // Transaction functions are built once: better-sqlite3 builds four wrappers per call of
  // db.transaction(), which showed in profiles when done per write.
  /** One write alone in its commit. */
  private readonly commitOne: (fn: () => unknown) => unknown;
  /** One write inside the batch's transaction: better-sqlite3 nests it as a savepoint. */
  private readonly inSavepoint: (fn: () => unknown) => unknown;
  /** Every write of a batch, each in its savepoint, in one IMMEDIATE transaction. */
  private readonly commitMany: (batch: Queued[], outcomes: Outcome[]) => void;

  constructor(private readonly db: Database.Database) {
    this.commitOne = db.transaction((fn: () => unknown) => fn()).immediate;
    this.inSavepoint = db.transaction((fn: () => unknown) => fn());
    this.commitMany = db.transaction((batch: Queued[], outcomes: Outcome[]) => {
      for (const q of batch) outcomes.push(attempt(this.inSavepoint, q));
    }).immediate;
  }

  /** Queues `fn` (synchronous statements on this connection) for the next commit. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      this.scheduled ??= setImmediate(() => this.flush());
    });
  }

  /** Writes everything queued now, synchronously (close() calls it; the timer otherwise). */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    if (!this.db.open) {
      for (const q of batch) q.reject(new Error('the memory store is closed'));
      return;
    }
    const outcomes: Outcome[] = [];
    try {
      // A write alone in its commit needs no savepoint: its error rolls back only itself.
      if (batch.length === 1) outcomes.push(attempt(this.commitOne, batch[0]));
      else this.commitMany(batch, outcomes);
    } catch (err) {
      for (const q of batch) q.reject(err);
      return;
    }
    this.stats.commits += 1;
    this.stats.writes += batch.length;
    batch.forEach((q, i) => {
      const o = outcomes[i];
      if (o.ok) q.resolve(o.value);
      else q.reject(o.err);
    });
  }
}

/** Runs one write, its error kept as its outcome. */
function attempt(run: (fn: () => unknown) => unknown, q: Queued): Outcome {
  try {
    return { ok: true, value: run(q.fn) };
  } catch (err) {
    return { ok: false, err };
  }
}

const batches = new WeakMap<Database.Database, WriteBatch>();

/** The one write queue of a connection, shared by the store, its savers and its task store. */
export function writeBatch(db: Database.Database): WriteBatch {
  let b = batches.get(db);
  if (!b) {
    b = new WriteBatch(db);
    batches.set(db, b);
  }
  return b;
}
