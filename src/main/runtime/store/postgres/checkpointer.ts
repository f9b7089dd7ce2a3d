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

export class OwnedPostgresSaver extends PostgresSaver {
  private readonly ownerSql: string;
  private readonly valuesSql: string;

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
    this.valuesSql = SELECT_VALUES_SQL(schemaSql);
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
    const sql = `${this.valuesSql}where cp.thread_id = $1 and cp.checkpoint_ns = $2 and ($3::text is null or cp.checkpoint_id = $3)
      order by cp.checkpoint_id desc limit 1`;
    const row = (await this.db.query<TupleRow>(sql, [threadId, ns, checkpointId])).rows[0];
    if (!row) return undefined;
    // Checkpoints before format v4 kept sends as the parent's writes: the saver's own path.
    if (row.checkpoint.v < 4 && row.parent_checkpoint_id != null) return super.getTuple(config);
    return this.tupleOf(row);
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
