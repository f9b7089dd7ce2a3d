// LangGraph checkpointer on the SQLite memory store, laid out like LangGraph's Postgres saver:
// a checkpoint row without channel values, channel values in checkpoint_blobs written only when
// their version changes, pending writes in checkpoint_writes. Every thread is owned by one
// agent (spec 2.4); this saver only reads and writes threads of its own agent (spec 5.3).
import type Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
  BaseCheckpointSaver,
  TASKS,
  WRITES_IDX_MAP,
  maxChannelVersion,
  copyCheckpoint,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
} from '@langchain/langgraph-checkpoint';
import { ThreadOwnershipError } from './types.ts';
import { writeBatch, type WriteBatch } from './write-batch.ts';
import { FastReadSerializer } from './fast-serde.ts';
import {
  claimThread,
  deleteThreadRows,
  statements,
  type BlobRow,
  type CheckpointRow,
  type RawTuple,
  type Statements,
  type WriteRow,
} from './checkpoint-statements.ts';
import { requireThreadId, threadIdOf } from './thread-config.ts';
import { stampTurn } from './turn-stamp.ts';

/** A Buffer view of serialised bytes (better-sqlite3 binds Buffers as BLOBs), without copying. */
function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Tuples held for runs at most (readForRun). */
const HELD_MAX = 256;

export class SqliteCheckpointSaver extends BaseCheckpointSaver {
  private readonly s: Statements;
  private readonly writes: WriteBatch;
  private readonly decoder = new TextDecoder();
  /** Latest tuples read by readForRun, each handed once to the run's own getTuple. */
  private readonly held = new Map<string, CheckpointTuple>();
  /** Read transactions, built once (better-sqlite3 builds four wrappers per db.transaction()). */
  private readonly readTx: (threadId: string, ns: string, checkpointId: string | undefined) => RawTuple | undefined;
  private readonly markerTx: (threadId: string) => { id: string; writes: number } | undefined;

  constructor(
    private readonly db: Database.Database,
    /** The agent owning the threads this saver writes (AGENT_ID; may be ''). */
    readonly agentId: string,
    serde?: SerializerProtocol,
  ) {
    // D-42: LangGraph's own bytes, read back without its generic reviver for chat messages.
    super(serde ?? new FastReadSerializer());
    this.s = statements(db);
    this.writes = writeBatch(db);
    this.readTx = db.transaction((threadId: string, ns: string, checkpointId: string | undefined) => this.readRawNow(threadId, ns, checkpointId));
    this.markerTx = db.transaction((threadId: string) =>
      this.ownsThread(threadId) ? (this.s.marker.get(threadId, '') as { id: string; writes: number } | undefined) : undefined,
    );
  }

  /**
   * Channel versions must be unique per (thread, namespace, channel), not only increasing:
   * blobs are keyed by version, and a fork (updateState / resuming from an older checkpoint)
   * would otherwise hand out the same integer version as the abandoned branch and silently
   * read that branch's value. The integer part keeps LangGraph's ordering (> current); the
   * random fraction makes a version collision across branches practically impossible.
   * Versions stay numbers, so the saver remains a BaseCheckpointSaver<number>.
   */
  override getNextVersion(current: number | undefined): number {
    const base = typeof current === 'number' ? Math.floor(current) : 0;
    return base + 1 + Math.random();
  }

  /** True when the thread is owned by this saver's agent. A thread owned by another agent is
   * invisible (spec 5.3), exactly as if it did not exist. */
  private ownsThread(threadId: string): boolean {
    return this.s.owner.get(threadId) === this.agentId;
  }

  /** Reads one checkpoint with its blobs and pending writes. Called through readTx, inside one
   * read transaction, so that a concurrent writer (another handle or process) cannot tear it. */
  private readRawNow(threadId: string, ns: string, checkpointId: string | undefined): RawTuple | undefined {
    if (!this.ownsThread(threadId)) return undefined;
    const row = (checkpointId ? this.s.byId.get(threadId, ns, checkpointId) : this.s.latest.get(threadId, ns)) as CheckpointRow | undefined;
    if (!row) return undefined;
    const versions = JSON.parse(row.channel_versions) as ChannelVersions;
    const blobs: RawTuple['blobs'] = [];
    for (const [channel, version] of Object.entries(versions)) {
      const b = this.s.blob.get(threadId, ns, channel, String(version)) as BlobRow | undefined;
      if (b && b.type !== 'empty') blobs.push({ channel, ...b });
    }
    const writes = this.s.writes.all(threadId, ns, row.checkpoint_id) as WriteRow[];
    return { row, blobs, writes };
  }

  /** Deserialises outside the transaction (serde is async, better-sqlite3 transactions are not). */
  private async assemble({ row, blobs, writes }: RawTuple): Promise<CheckpointTuple> {
    const checkpoint = (await this.serde.loadsTyped(row.type, row.checkpoint)) as Checkpoint;
    const values: Record<string, unknown> = {};
    for (const b of blobs) values[b.channel] = await this.serde.loadsTyped(b.type, b.blob ?? new Uint8Array());
    checkpoint.channel_values = values;
    // Checkpoints before format v4 kept sends as the parent's pending writes; LangGraph reads
    // them as the TASKS channel (as its own savers migrate them).
    if (checkpoint.v < 4 && row.parent_checkpoint_id) {
      const sends = this.s.sends.all(row.thread_id, row.checkpoint_ns, row.parent_checkpoint_id, TASKS) as BlobRow[];
      if (sends.length > 0) {
        values[TASKS] = await Promise.all(sends.map((w) => this.serde.loadsTyped(w.type, w.blob ?? new Uint8Array())));
        const versions = Object.values(checkpoint.channel_versions);
        checkpoint.channel_versions[TASKS] = versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
      }
    }
    const pendingWrites: CheckpointPendingWrite[] = [];
    for (const w of writes) pendingWrites.push([w.task_id, w.channel, await this.serde.loadsTyped(w.type, w.blob ?? new Uint8Array())]);
    const tuple: CheckpointTuple = {
      config: { configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.checkpoint_id } },
      checkpoint,
      metadata: (await this.serde.loadsTyped('json', row.metadata)) as CheckpointMetadata,
      pendingWrites,
    };
    if (row.parent_checkpoint_id) {
      tuple.parentConfig = { configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: row.parent_checkpoint_id } };
    }
    return tuple;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const checkpointId = (config.configurable?.checkpoint_id as string | undefined) || (config.configurable?.thread_ts as string | undefined) || undefined;
    if (!checkpointId && ns === '') {
      const held = this.takeHeld(threadId);
      if (held) return held;
    }
    const raw = this.readTx(threadId, ns, checkpointId);
    return raw ? this.assemble(raw) : undefined;
  }

  /**
   * The thread's latest tuple, read for the executor before it starts a run (docs/decisions.md
   * D-39): the run's own first getTuple of the thread gets this same tuple instead of deserialising the
   * whole state a second time, provided the thread has not changed in between (same latest
   * checkpoint, same number of pending writes, still this agent's). Each read is handed over
   * once; a write to the thread drops it. The caller must not change the tuple.
   */
  async readForRun(threadId: string): Promise<CheckpointTuple | undefined> {
    const tuple = await this.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
    if (tuple) {
      this.held.delete(threadId);
      this.held.set(threadId, tuple);
      // Bounded: a run that fails before LangGraph reads (a contract violation) leaves one.
      if (this.held.size > HELD_MAX) this.held.delete(this.held.keys().next().value as string);
    }
    return tuple;
  }

  private takeHeld(threadId: string): CheckpointTuple | undefined {
    const held = this.held.get(threadId);
    if (!held) return undefined;
    this.held.delete(threadId);
    const now = this.markerTx(threadId);
    const same = now && now.id === held.config.configurable?.checkpoint_id && now.writes === (held.pendingWrites?.length ?? 0);
    return same ? held : undefined;
  }

  /** Newest first. Without a thread_id it lists every thread of this agent; without a
   * checkpoint_ns every namespace. `filter` matches top-level metadata keys by JSON equality. */
  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { before, limit, filter } = options ?? {};
    if (limit !== undefined && limit <= 0) return;
    const where: string[] = [];
    const params: unknown[] = [this.agentId];
    const threadId = threadIdOf(config);
    if (threadId !== undefined) {
      where.push('c.thread_id = ?');
      params.push(threadId);
    }
    const ns = config.configurable?.checkpoint_ns as string | undefined;
    if (ns !== undefined) {
      where.push('c.checkpoint_ns = ?');
      params.push(ns);
    }
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (checkpointId) {
      where.push('c.checkpoint_id = ?');
      params.push(checkpointId);
    }
    const beforeId = before?.configurable?.checkpoint_id as string | undefined;
    if (beforeId) {
      where.push('c.checkpoint_id < ?');
      params.push(beforeId);
    }
    for (const [key, value] of Object.entries(filter ?? {})) {
      if (value === undefined) continue;
      // `->` returns the key's value as minified JSON text; json(?) minifies the expected value
      // the same way. The label is JSON-quoted, which SQLite's path syntax accepts for any key.
      where.push('(c.metadata -> ?) = json(?)');
      params.push(`$.${JSON.stringify(key)}`, JSON.stringify(value));
    }
    let sql = `SELECT c.thread_id, c.checkpoint_ns, c.checkpoint_id FROM checkpoints c
      JOIN threads t ON t.thread_id = c.thread_id AND t.agent_id = ?
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY c.checkpoint_id DESC, c.thread_id, c.checkpoint_ns`;
    if (limit !== undefined) {
      sql += ' LIMIT ?';
      params.push(limit);
    }
    let stmt = this.s.listCache.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.s.listCache.set(sql, stmt);
    }
    // Only the keys are collected here; each tuple is read when the consumer asks for it, so
    // no statement stays open across a yield (the consumer may write on this connection).
    const keys = stmt.all(...params) as Array<Pick<CheckpointRow, 'thread_id' | 'checkpoint_ns' | 'checkpoint_id'>>;
    for (const k of keys) {
      const raw = this.readTx(k.thread_id, k.checkpoint_ns, k.checkpoint_id);
      if (raw) yield await this.assemble(raw); // a checkpoint deleted meanwhile is skipped
    }
  }

  async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = requireThreadId(config, 'put');
    this.held.delete(threadId);
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const parentId = (config.configurable?.checkpoint_id as string | undefined) || null;
    const { channel_values: values, ...rest } = copyCheckpoint(checkpoint);

    // Only channels whose version changed get a blob; the others already have one at the
    // version this checkpoint's channel_versions names. A channel with a version and no value
    // (a branch trigger, __start__ once consumed) gets no row at all: reading treats a missing
    // row as empty, as it does the 'empty' rows older stores hold (D-39).
    const blobs = await Promise.all(
      Object.entries(newVersions)
        .filter(([channel]) => Object.prototype.hasOwnProperty.call(values, channel))
        .map(async ([channel, version]) => {
          const [type, bytes] = await this.serde.dumpsTyped(values[channel]);
          return { channel, version: String(version), type, blob: toBuffer(bytes) };
        }),
    );
    const [type, bytes] = await this.serde.dumpsTyped(rest);
    const [metaType, metaBytes] = await this.serde.dumpsTyped(stampTurn(config, metadata));
    // Metadata is kept as JSON text so list() can filter on it in SQL.
    if (metaType !== 'json') throw new Error(`SqliteCheckpointSaver needs metadata serialised as json, got '${metaType}'`);
    const metadataJson = this.decoder.decode(metaBytes);

    await this.writes.run(() => {
      claimThread(this.db, threadId, this.agentId);
      for (const b of blobs) this.s.putBlob.run(threadId, ns, b.channel, b.version, b.type, b.blob);
      this.s.putCheckpoint.run(
        threadId,
        ns,
        checkpoint.id,
        parentId,
        type,
        toBuffer(bytes),
        JSON.stringify(rest.channel_versions),
        metadataJson,
        new Date().toISOString(),
      );
    });
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const threadId = requireThreadId(config, 'putWrites');
    this.held.delete(threadId);
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const checkpointId = config.configurable?.checkpoint_id as string | undefined;
    if (!checkpointId) throw new Error('putWrites: the RunnableConfig has no configurable.checkpoint_id');
    const rows = await Promise.all(
      writes.map(async ([channel, value], i) => {
        const [type, bytes] = await this.serde.dumpsTyped(value);
        return { idx: WRITES_IDX_MAP[channel] ?? i, channel, type, blob: toBuffer(bytes) };
      }),
    );
    await this.writes.run(() => {
      claimThread(this.db, threadId, this.agentId);
      for (const r of rows) this.s.putWrite.run(threadId, ns, checkpointId, taskId, r.idx, r.channel, r.type, r.blob);
    });
  }

  /** Deletes the whole thread (checkpoints, blobs, writes, persistent memory, ownership).
   * Another agent's thread is refused, an unknown one is a no-op. */
  async deleteThread(threadId: string): Promise<void> {
    this.held.delete(threadId);
    await this.writes.run(() => {
      const owner = this.s.owner.get(threadId) as string | undefined;
      if (owner === undefined) return;
      if (owner !== this.agentId) throw new ThreadOwnershipError(threadId, owner, this.agentId);
      deleteThreadRows(this.db, threadId);
    });
  }
}
