// LangGraph's own PostgreSQL checkpointer (@langchain/langgraph-checkpoint-postgres), with
// the runtime's thread ownership on top (spec 2.4, 5.3): a write claims an unowned thread for
// the saver's agent and is refused on another agent's thread; another agent's thread reads as
// if it did not exist. Ownership is asked of the database with each read, in the read's own
// statement, never cached: another replica may delete or migrate a thread at any moment. A
// turn's checkpoint is written with the turn's end (end-batch.ts, D-84) and the latest one a
// turn reads comes from what this replica wrote when the turn's head names it (thread-cache.ts, D-85).
import type pg from 'pg';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { ChannelVersions, Checkpoint, CheckpointListOptions, CheckpointMetadata, CheckpointTuple, PendingWrite } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ThreadOwnershipError } from '../types.ts';
import { FastReadSerializer } from '../fast-serde.ts';
import { requireThreadId, threadIdOf } from '../thread-config.ts';
import { stampTurn } from '../turn-stamp.ts';
import { TURN_TASK_CONFIG_KEY } from '../../../../shared/thread-state.ts';
import type { PgEndBatch } from './end-batch.ts';
import type { ThreadCache } from './thread-cache.ts';

/** One round trip in the usual case: claim the thread when it is free, then answer its owner. */
export const CLAIM_SQL = (schema: string) => `WITH claimed AS (
    INSERT INTO ${schema}.threads (thread_id, agent_id) VALUES ($1, $2) ON CONFLICT (thread_id) DO NOTHING RETURNING agent_id
  )
  SELECT agent_id FROM claimed UNION ALL SELECT agent_id FROM ${schema}.threads WHERE thread_id = $1 LIMIT 1`;

/**
 * Claims `threadId` for `agentId` (or finds it already theirs); throws ThreadOwnershipError
 * when another agent owns it. When another transaction claimed the thread at the same moment,
 * the statement above sees no row: its snapshot predates that commit, which its INSERT waited
 * for. A second statement takes a new snapshot and sees the owner.
 */
export async function claimThread(db: Pick<pg.Pool | pg.PoolClient, 'query'>, schema: string, threadId: string, agentId: string): Promise<void> {
  let owner = (await db.query<{ agent_id: string }>(CLAIM_SQL(schema), [threadId, agentId])).rows[0]?.agent_id;
  owner ??= (await db.query<{ agent_id: string }>(`SELECT agent_id FROM ${schema}.threads WHERE thread_id = $1`, [threadId])).rows[0]?.agent_id;
  if (owner !== agentId) throw new ThreadOwnershipError(threadId, owner ?? '', agentId);
}

/**
 * Checkpoints with their channel values and pending writes. LangGraph's own query joins the
 * checkpoint's channel versions with every blob of the thread; on a table whose statistics
 * lag (a young table, a growing thread) the planner hashes all of them, so each read grew
 * with the conversation (3 ms at turn 200, bench/replicas.bench.ts). A LATERAL lookup per
 * channel keeps it to one primary-key probe per channel, whatever the thread's length. The
 * blobs come as JSON arrays of base64 text, not as arrays of bytea: node-postgres parses a
 * bytea array's text form character by character, which took about 0.6 s a megabyte (a page
 * of checkpoints of a 5 MB state took over 10 s; test/integration/large-state.test.ts).
 */
const SELECT_VALUES_SQL = (schema: string) => `select
    cp.thread_id, cp.checkpoint, cp.checkpoint_ns, cp.checkpoint_id, cp.parent_checkpoint_id, cp.metadata,
    (
      select json_agg(json_build_array(b.channel, b.type, encode(b.blob, 'base64')))
      from jsonb_each_text(cp.checkpoint -> 'channel_versions') v
      cross join lateral (
        select bl.channel, bl.type, bl.blob from ${schema}.checkpoint_blobs bl
        where bl.thread_id = cp.thread_id and bl.checkpoint_ns = cp.checkpoint_ns and bl.channel = v.key and bl.version = v.value
        limit 1
      ) b
    ) as channel_values,
    (
      select json_agg(json_build_array(cw.task_id::text, cw.channel, cw.type, encode(cw.blob, 'base64')) order by cw.task_id, cw.idx)
      from ${schema}.checkpoint_writes cw
      where cw.thread_id = cp.thread_id and cw.checkpoint_ns = cp.checkpoint_ns and cw.checkpoint_id = cp.checkpoint_id
    ) as pending_writes
  from ${schema}.checkpoints cp `;

/** A held tuple (readForRun) is handed to the run's own first read for at most this long. */
const HELD_MS = 2_000;

type Text = string | null;

interface TupleRow {
  thread_id: string;
  checkpoint: Omit<Checkpoint, 'pending_sends' | 'channel_values'>;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  metadata: Record<string, unknown>;
  /** [channel, type, base64 blob] */
  channel_values: [Text, Text, Text][] | null;
  /** [task_id, channel, type, base64 blob] */
  pending_writes: [Text, Text, Text, Text][] | null;
}

const encoder = new TextEncoder();
/** A row's JSON array as the saver's loaders take it: bytes, the last item decoded from base64. */
function bytesOf<T extends Text[]>(items: T): Uint8Array[] {
  return items.map((x, i) => (x === null ? (null as unknown as Uint8Array) : i === items.length - 1 ? Buffer.from(x, 'base64') : encoder.encode(x)));
}

/** A cached checkpoint as the row a read would give. */
function rowOf(threadId: string, c: import('./thread-cache.ts').CachedCheckpoint): TupleRow {
  const values: [Text, Text, Text][] = [];
  for (const [channel, b] of c.blobs) values.push([channel, b.type, b.blob === null ? null : Buffer.from(b.blob).toString('base64')]);
  return {
    thread_id: threadId,
    checkpoint: JSON.parse(c.checkpoint) as TupleRow['checkpoint'],
    checkpoint_ns: '',
    checkpoint_id: c.id,
    parent_checkpoint_id: c.parent,
    metadata: JSON.parse(c.metadata) as Record<string, unknown>,
    channel_values: values,
    pending_writes: null,
  };
}

export class OwnedPostgresSaver extends PostgresSaver {
  private readonly ownerSql: string;
  private readonly valuesSql: string;
  private readonly latestSql: { name: string; text: string };
  /** Latest tuples read by readForRun, each handed once to the run's own first read. */
  private readonly held = new Map<string, { tuple: CheckpointTuple | undefined; at: number }>();

  constructor(
    private readonly db: pg.Pool,
    /** The agent owning the threads this saver writes (AGENT_ID; may be ''). */
    readonly agentId: string,
    /** Quoted schema name. */
    private readonly schemaSql: string,
    schema: string,
    private readonly batch?: PgEndBatch,
    private readonly cache?: ThreadCache,
  ) {
    super(db, new FastReadSerializer(), { schema }); // D-42: LangGraph's bytes, read faster
    this.ownerSql = `SELECT agent_id FROM ${schemaSql}.threads WHERE thread_id = $1`;
    this.valuesSql = SELECT_VALUES_SQL(schemaSql);
    // The owner checked in the read's own statement: one round trip, prepared once per connection.
    this.latestSql = {
      name: `latest-${schemaSql}-${agentId}`,
      text: `${this.valuesSql}where cp.thread_id = $1 and cp.checkpoint_ns = $2 and ($3::text is null or cp.checkpoint_id = $3)
        and exists (select 1 from ${schemaSql}.threads th where th.thread_id = $1 and th.agent_id = $4)
      order by cp.checkpoint_id desc limit 1`,
    };
  }

  /** Writes of `threadId` still queued are committed before it is read or written otherwise. */
  private async settled(threadId: string | undefined): Promise<void> {
    if (this.batch && threadId !== undefined && this.batch.pending(threadId)) await this.batch.flush();
  }

  /** As the SQLite saver (store/checkpointer.ts): blobs are keyed by channel version, so a
   * fork must never hand out the version of an abandoned branch; a random fraction on top of
   * LangGraph's integer keeps the order and makes a collision practically impossible. */
  override getNextVersion(current: number | undefined): number {
    const base = typeof current === 'number' ? Math.floor(current) : 0;
    return base + 1 + Math.random();
  }

  private async owner(threadId: string): Promise<string | undefined> {
    return (await this.db.query<{ agent_id: string }>(this.ownerSql, [threadId])).rows[0]?.agent_id;
  }

  private claim(threadId: string): Promise<void> {
    return claimThread(this.db, this.schemaSql, threadId, this.agentId);
  }

  override async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) return undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const checkpointId = (config.configurable?.checkpoint_id as string | undefined) || null;
    const latest = checkpointId === null && ns === '';
    if (latest) {
      const held = this.held.get(threadId);
      this.held.delete(threadId);
      if (held && Date.now() - held.at <= HELD_MS && !this.batch?.pending(threadId)) return held.tuple;
    }
    await this.settled(threadId);
    // The turn's head names the latest checkpoint: when this replica wrote it, no read.
    const head = latest ? this.cache?.takeHead(threadId, 'checkpoint') : undefined;
    if (head) {
      if (head.owner !== this.agentId || head.checkpointId === null) return undefined;
      const cached = this.cache?.checkpoint(threadId, head.checkpointId);
      if (cached && cached.agent === this.agentId) return this.tupleOf(rowOf(threadId, cached));
    }
    const row = (await this.db.query<TupleRow>({ ...this.latestSql, values: [threadId, ns, checkpointId, this.agentId] })).rows[0];
    if (!row) return undefined;
    // Checkpoints before format v4 kept sends as the parent's writes: the saver's own path.
    if (row.checkpoint.v < 4 && row.parent_checkpoint_id != null) return super.getTuple(config);
    if (latest && !row.pending_writes?.length) this.remember(row);
    return this.tupleOf(row);
  }

  /** The thread's latest tuple, read before a run (execution/input.ts): the run's own first
   * read of it gets this same tuple, as on SQLite (store/checkpointer.ts, D-39). */
  async readForRun(threadId: string): Promise<CheckpointTuple | undefined> {
    const tuple = await this.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: '' } });
    // Held also when there is none: a new thread's run need not ask again.
    this.held.delete(threadId);
    this.held.set(threadId, { tuple, at: Date.now() });
    if (this.held.size > 256) this.held.delete(this.held.keys().next().value as string);
    return tuple;
  }

  /** A latest checkpoint read from the database, cached as if written here. */
  private remember(row: TupleRow): void {
    const versions = row.checkpoint.channel_versions ?? {};
    const blobs = (row.channel_values ?? []).map(([channel, type, b64]) => ({
      channel: channel ?? '',
      version: String(versions[channel ?? '']),
      type: type ?? 'empty',
      blob: b64 === null ? null : Buffer.from(b64, 'base64'),
    }));
    // A version with no row has no value (put writes no row for it; both are written together).
    const read = new Set(blobs.map((b) => b.channel));
    for (const [channel, version] of Object.entries(versions))
      if (!read.has(channel)) blobs.push({ channel, version: String(version), type: 'empty', blob: null });
    const c = {
      agent: this.agentId,
      id: row.checkpoint_id,
      parent: row.parent_checkpoint_id,
      checkpoint: JSON.stringify(row.checkpoint),
      metadata: JSON.stringify(row.metadata),
    };
    this.cache?.wrote(row.thread_id, c, versions, blobs);
  }

  private async tupleOf(row: TupleRow): Promise<CheckpointTuple> {
    const at = (id: string) => ({ configurable: { thread_id: row.thread_id, checkpoint_ns: row.checkpoint_ns, checkpoint_id: id } });
    return {
      config: at(row.checkpoint_id),
      checkpoint: await this._loadCheckpoint(row.checkpoint, (row.channel_values ?? []).map(bytesOf) as [Uint8Array, Uint8Array, Uint8Array][]),
      metadata: await this._loadMetadata(row.metadata),
      parentConfig: row.parent_checkpoint_id ? at(row.parent_checkpoint_id) : undefined,
      pendingWrites: await this._loadWrites((row.pending_writes ?? []).map(bytesOf) as [Uint8Array, Uint8Array, Uint8Array, Uint8Array][]),
    };
  }

  /** One thread's checkpoints, newest first, with LangGraph's list options (namespace when the
   * config names one, checkpoint id, metadata filter, before, limit). */
  private async *listThread(threadId: string, config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const args: unknown[] = [threadId];
    const wheres = ['cp.thread_id = $1'];
    const where = (sql: string, value: unknown) => wheres.push(sql.replace('?', `$${args.push(value)}`));
    const c = config.configurable ?? {};
    if (c.checkpoint_ns !== undefined && c.checkpoint_ns !== null) where('cp.checkpoint_ns = ?', c.checkpoint_ns);
    if (c.checkpoint_id !== undefined) where('cp.checkpoint_id = ?', c.checkpoint_id);
    if (options?.filter && Object.keys(options.filter).length) where('cp.metadata @> ?', JSON.stringify(options.filter));
    if (options?.before?.configurable?.checkpoint_id !== undefined) where('cp.checkpoint_id < ?', options.before.configurable.checkpoint_id);
    let sql = `${this.valuesSql}where ${wheres.join(' and ')} order by cp.checkpoint_id desc`;
    if (options?.limit !== undefined) sql += ` limit ${Number.parseInt(String(options.limit), 10)}`;
    const rows = (await this.db.query<TupleRow>(sql, args)).rows;
    // Checkpoints before format v4 kept sends as the parent's writes: the saver's own path.
    if (rows.some((r) => r.checkpoint.v < 4 && r.parent_checkpoint_id != null)) {
      yield* super.list(config, options);
      return;
    }
    for (const row of rows) yield await this.tupleOf(row);
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const threadId = threadIdOf(config);
    if (threadId === undefined) await this.batch?.flush();
    else await this.settled(threadId);
    if (threadId !== undefined) {
      if ((await this.owner(threadId)) !== this.agentId) return;
      yield* this.listThread(threadId, config, options);
      return;
    }
    // Across threads: only this agent's (the limit applies to what is yielded).
    const limit = options?.limit;
    const owners = new Map<string, string | undefined>();
    let n = 0;
    for await (const tuple of super.list(config, { ...options, limit: undefined })) {
      const id = String(tuple.config.configurable?.thread_id);
      if (!owners.has(id)) owners.set(id, await this.owner(id));
      if (owners.get(id) !== this.agentId) continue;
      yield tuple;
      if (limit !== undefined && ++n >= limit) return;
    }
  }

  override async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions): Promise<RunnableConfig> {
    const threadId = requireThreadId(config, 'put');
    this.held.delete(threadId);
    const stamped = stampTurn(config, metadata);
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const now = async () => {
      await this.claim(threadId);
      return super.put(config, checkpoint, stamped, newVersions);
    };
    // A turn's checkpoint (its config names the task) goes with the turn's end (D-84); any
    // other (an edit, a fork, a test) is written before put resolves, its errors thrown.
    if (!this.batch || ns !== '' || config.configurable?.[TURN_TASK_CONFIG_KEY] === undefined) {
      this.cache?.forget(threadId);
      await this.settled(threadId);
      return now();
    }
    // Another agent's thread, as the turn's head read it, is refused now, in the run, as an
    // immediate write would be: the turn fails, it is not left to the end's batch.
    const owner = this.cache?.ownerOf(threadId);
    if (owner && owner !== this.agentId) throw new ThreadOwnershipError(threadId, owner, this.agentId);
    const parent = (config.configurable?.checkpoint_id as string | undefined) ?? null;
    const blobs = (await this._dumpBlobs(threadId, ns, checkpoint.channel_values, newVersions)).map(([, , channel, version, type, blob]) => ({
      thread: threadId,
      ns,
      channel,
      version,
      type,
      blob: blob ?? null,
    }));
    // Serialised once, for the batch's statement and the cache (which must not change with the
    // objects LangGraph keeps using).
    const cp = JSON.stringify(this._dumpCheckpoint(checkpoint));
    const md = JSON.stringify(await this._dumpMetadata(stamped));
    const row = { thread: threadId, ns, id: checkpoint.id, parent, checkpoint: cp, metadata: md };
    this.cache?.wrote(threadId, { agent: this.agentId, id: checkpoint.id, parent, checkpoint: cp, metadata: md }, checkpoint.channel_versions, blobs);
    // A version without a value gets no row (as on SQLite): a read finds no blob for it, which
    // every reader takes as LangGraph's 'empty' row (D-110).
    const stored = blobs.filter((b) => b.type !== 'empty');
    this.batch.writeLater({ thread: threadId, agent: this.agentId, blobs: stored, checkpoint: row, slow: async () => void (await now()) });
    return { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: checkpoint.id } };
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    const threadId = requireThreadId(config, 'putWrites');
    this.held.delete(threadId);
    this.cache?.forget(threadId); // the cached checkpoint has no pending writes
    await this.settled(threadId);
    await this.claim(threadId);
    return super.putWrites(config, writes, taskId);
  }

  /** Deletes the thread's checkpoints when this agent owns it (the store's deleteThread also
   * removes memory and ownership, with counts). */
  override async deleteThread(threadId: string): Promise<void> {
    await this.settled(threadId);
    this.cache?.forget(threadId);
    if ((await this.owner(threadId)) !== this.agentId) return;
    await super.deleteThread(threadId);
  }

  /** The pool belongs to the store: a saver never ends it. */
  override async end(): Promise<void> {}
}
