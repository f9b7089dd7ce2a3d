// LangGraph's own PostgreSQL checkpointer (@langchain/langgraph-checkpoint-postgres), with
// the runtime's thread ownership on top (spec 2.4, 5.3): a write claims an unowned thread for
// the saver's agent and is refused on another agent's thread; another agent's thread reads as
// if it did not exist. Ownership is asked of the database each time, never cached: another
// replica may delete or migrate a thread at any moment.
import type pg from 'pg';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { ChannelVersions, Checkpoint, CheckpointListOptions, CheckpointMetadata, CheckpointTuple, PendingWrite } from '@langchain/langgraph-checkpoint';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { ThreadOwnershipError } from '../types.ts';
import { FastReadSerializer } from '../fast-serde.ts';
import { requireThreadId, threadIdOf } from '../thread-config.ts';
import { stampTurn } from '../turn-stamp.ts';

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
 * One checkpoint with its channel values and pending writes. LangGraph's own query joins the
 * checkpoint's channel versions with every blob of the thread; on a table whose statistics
 * lag (a young table, a growing thread) the planner hashes all of them, so each read grew
 * with the conversation (3 ms at turn 200, bench/replicas.bench.ts). A LATERAL lookup per
 * channel keeps it to one primary-key probe per channel, whatever the thread's length.
 */
const SELECT_TUPLE_SQL = (schema: string) => `select
    cp.thread_id, cp.checkpoint, cp.checkpoint_ns, cp.checkpoint_id, cp.parent_checkpoint_id, cp.metadata,
    (
      select array_agg(array[b.channel::bytea, b.type::bytea, b.blob])
      from jsonb_each_text(cp.checkpoint -> 'channel_versions') v
      cross join lateral (
        select bl.channel, bl.type, bl.blob from ${schema}.checkpoint_blobs bl
        where bl.thread_id = cp.thread_id and bl.checkpoint_ns = cp.checkpoint_ns and bl.channel = v.key and bl.version = v.value
        limit 1
      ) b
    ) as channel_values,
    (
      select array_agg(array[cw.task_id::text::bytea, cw.channel::bytea, cw.type::bytea, cw.blob] order by cw.task_id, cw.idx)
      from ${schema}.checkpoint_writes cw
      where cw.thread_id = cp.thread_id and cw.checkpoint_ns = cp.checkpoint_ns and cw.checkpoint_id = cp.checkpoint_id
    ) as pending_writes
  from ${schema}.checkpoints cp
  where cp.thread_id = $1 and cp.checkpoint_ns = $2 and ($3::text is null or cp.checkpoint_id = $3)
  order by cp.checkpoint_id desc limit 1`;

interface TupleRow {
  thread_id: string;
  checkpoint: Omit<Checkpoint, 'pending_sends' | 'channel_values'>;
  checkpoint_ns: string;
  checkpoint_id: string;
  parent_checkpoint_id: string | null;
  metadata: Record<string, unknown>;
  channel_values: [Uint8Array, Uint8Array, Uint8Array][] | null;
  pending_writes: [Uint8Array, Uint8Array, Uint8Array, Uint8Array][] | null;
}

export class OwnedPostgresSaver extends PostgresSaver {
  private readonly ownerSql: string;
  private readonly tupleSql: string;

  constructor(
    private readonly db: pg.Pool,
    /** The agent owning the threads this saver writes (AGENT_ID; may be ''). */
    readonly agentId: string,
    /** Quoted schema name. */
    private readonly schemaSql: string,
    schema: string,
  ) {
    super(db, new FastReadSerializer(), { schema }); // D-42: LangGraph's bytes, read faster
    this.ownerSql = `SELECT agent_id FROM ${schemaSql}.threads WHERE thread_id = $1`;
    this.tupleSql = SELECT_TUPLE_SQL(schemaSql);
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
    if (threadId === undefined || (await this.owner(threadId)) !== this.agentId) return undefined;
    const ns = (config.configurable?.checkpoint_ns as string | undefined) ?? '';
    const checkpointId = (config.configurable?.checkpoint_id as string | undefined) || null;
    const row = (await this.db.query<TupleRow>(this.tupleSql, [threadId, ns, checkpointId])).rows[0];
    if (!row) return undefined;
    // Checkpoints before format v4 kept sends as the parent's writes: the saver's own path.
    if (row.checkpoint.v < 4 && row.parent_checkpoint_id != null) return super.getTuple(config);
    return {
      config: { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: row.checkpoint_id } },
      checkpoint: await this._loadCheckpoint(row.checkpoint, row.channel_values ?? []),
      metadata: await this._loadMetadata(row.metadata),
      parentConfig: row.parent_checkpoint_id
        ? { configurable: { thread_id: threadId, checkpoint_ns: ns, checkpoint_id: row.parent_checkpoint_id } }
        : undefined,
      pendingWrites: await this._loadWrites(row.pending_writes ?? []),
    };
  }

  override async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const threadId = threadIdOf(config);
    if (threadId !== undefined) {
      if ((await this.owner(threadId)) !== this.agentId) return;
      yield* super.list(config, options);
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
    await this.claim(requireThreadId(config, 'put'));
    return super.put(config, checkpoint, stampTurn(config, metadata), newVersions);
  }

  override async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string): Promise<void> {
    await this.claim(requireThreadId(config, 'putWrites'));
    return super.putWrites(config, writes, taskId);
  }

  /** Deletes the thread's checkpoints when this agent owns it (the store's deleteThread also
   * removes memory and ownership, with counts). */
  override async deleteThread(threadId: string): Promise<void> {
    if ((await this.owner(threadId)) !== this.agentId) return;
    await super.deleteThread(threadId);
  }

  /** The pool belongs to the store: a saver never ends it. */
  override async end(): Promise<void> {}
}
