// The SQL of the SQLite checkpointer (checkpointer.ts) and of thread ownership: the rows as
// stored, and the statements, prepared once per connection and shared by every saver on it.
import type Database from 'better-sqlite3';
import { ThreadOwnershipError, type DeletedCounts } from './types.ts';

export type Statement = Database.Statement<unknown[], unknown>;

export interface CheckpointRow {
  thread_id: string;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  type: string;
  checkpoint: Buffer;
  channel_versions: string;
  metadata: string;
}
export interface BlobRow {
  type: string;
  blob: Buffer | null;
}
export interface WriteRow {
  task_id: string;
  channel: string;
  type: string;
  blob: Buffer | null;
}
/** Everything getTuple needs, read in one transaction, still serialised. */
export interface RawTuple {
  row: CheckpointRow;
  blobs: Array<{ channel: string } & BlobRow>;
  writes: WriteRow[];
}

const CHECKPOINT_COLUMNS = 'c.thread_id, c.checkpoint_ns, c.checkpoint_id, c.parent_checkpoint_id, c.type, c.checkpoint, c.channel_versions, c.metadata';

/**
 * The latest checkpoint of a (thread, namespace). It walks the primary-key index
 * (thread_id, checkpoint_ns, checkpoint_id) backwards and stops at the first entry, so its cost
 * does not grow with the number of checkpoints in the thread. Exported so a test can assert the
 * query plan.
 */
export const LATEST_CHECKPOINT_SQL = `SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints c
  WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id DESC LIMIT 1`;

function prepare(db: Database.Database) {
  return {
    owner: db.prepare('SELECT agent_id FROM threads WHERE thread_id = ?').pluck(),
    claim: db.prepare('INSERT INTO threads (thread_id, agent_id, created_at) VALUES (?, ?, ?) ON CONFLICT (thread_id) DO NOTHING'),
    latest: db.prepare(LATEST_CHECKPOINT_SQL),
    /** What identifies the latest state of a (thread, namespace): its checkpoint id and the
     * number of its pending writes (for a tuple read earlier, see readForRun). */
    marker: db.prepare(
      `SELECT c.checkpoint_id AS id, (SELECT count(*) FROM checkpoint_writes w
         WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id) AS writes
       FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? ORDER BY c.checkpoint_id DESC LIMIT 1`,
    ),
    byId: db.prepare(`SELECT ${CHECKPOINT_COLUMNS} FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ? AND c.checkpoint_id = ?`),
    blob: db.prepare('SELECT type, blob FROM checkpoint_blobs WHERE thread_id = ? AND checkpoint_ns = ? AND channel = ? AND version = ?'),
    writes: db.prepare(
      'SELECT task_id, channel, type, blob FROM checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? ORDER BY task_id, idx',
    ),
    /** A parent's sends (TASKS writes), for checkpoints of the format before v4. */
    sends: db.prepare(
      'SELECT type, blob FROM checkpoint_writes WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? AND channel = ? ORDER BY task_id, idx',
    ),
    // A (channel, version) pair names one value, so a second write of it is a no-op.
    putBlob: db.prepare(
      `INSERT INTO checkpoint_blobs (thread_id, checkpoint_ns, channel, version, type, blob) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, checkpoint_ns, channel, version) DO NOTHING`,
    ),
    putCheckpoint: db.prepare(
      `INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, channel_versions, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET
         parent_checkpoint_id = excluded.parent_checkpoint_id, type = excluded.type, checkpoint = excluded.checkpoint,
         channel_versions = excluded.channel_versions, metadata = excluded.metadata`,
    ),
    // Same rule as MemorySaver: a regular write (idx >= 0) of a task is stored once and a retry
    // does not overwrite it; the special writes (error, interrupt, resume: idx < 0) are replaced.
    putWrite: db.prepare(
      `INSERT INTO checkpoint_writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, blob) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id, task_id, idx) DO UPDATE SET
         channel = excluded.channel, type = excluded.type, blob = excluded.blob
       WHERE excluded.idx < 0`,
    ),
    delCheckpoints: db.prepare('DELETE FROM checkpoints WHERE thread_id = ?'),
    delBlobs: db.prepare('DELETE FROM checkpoint_blobs WHERE thread_id = ?'),
    delWrites: db.prepare('DELETE FROM checkpoint_writes WHERE thread_id = ?'),
    delMemory: db.prepare('DELETE FROM persistent_memory WHERE thread_id = ?'),
    delThread: db.prepare('DELETE FROM threads WHERE thread_id = ?'),
    /** list() statements, one per query shape, prepared on first use. */
    listCache: new Map<string, Statement>(),
  };
}
export type Statements = ReturnType<typeof prepare>;

// Statements are prepared once per connection and shared by every saver on it.
const statementsByDb = new WeakMap<Database.Database, Statements>();
export function statements(db: Database.Database): Statements {
  let s = statementsByDb.get(db);
  if (!s) {
    s = prepare(db);
    statementsByDb.set(db, s);
  }
  return s;
}

/**
 * Claims `threadId` for `agentId` when no agent owns it yet; throws ThreadOwnershipError when
 * another agent does (spec 2.4: a thread belongs to exactly one agent). Call inside a write
 * transaction so the check and the write that follows it are atomic.
 */
export function claimThread(db: Database.Database, threadId: string, agentId: string): void {
  const s = statements(db);
  s.claim.run(threadId, agentId, new Date().toISOString());
  const owner = s.owner.get(threadId) as string;
  if (owner !== agentId) throw new ThreadOwnershipError(threadId, owner, agentId);
}

/** Deletes every row of a thread, ownership included. Call inside a write transaction. */
export function deleteThreadRows(db: Database.Database, threadId: string): DeletedCounts {
  const s = statements(db);
  const counts: DeletedCounts = {
    checkpoints: s.delCheckpoints.run(threadId).changes,
    checkpoint_blobs: s.delBlobs.run(threadId).changes,
    checkpoint_writes: s.delWrites.run(threadId).changes,
    persistent_memory: s.delMemory.run(threadId).changes,
  };
  s.delThread.run(threadId);
  return counts;
}
