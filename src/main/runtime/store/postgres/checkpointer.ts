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

function threadIdOf(config: RunnableConfig): string | undefined {
  const id = config.configurable?.thread_id;
  return id === undefined || id === null || id === '' ? undefined : String(id);
}

function requireThreadId(config: RunnableConfig, op: string): string {
  const id = threadIdOf(config);
  if (id === undefined) {
    throw new Error(`${op}: the RunnableConfig has no configurable.thread_id; pass one so the checkpointer knows which thread to persist`);
  }
  return id;
}

export class OwnedPostgresSaver extends PostgresSaver {
  private readonly ownerSql: string;

  constructor(
    private readonly db: pg.Pool,
    /** The agent owning the threads this saver writes (AGENT_ID; may be ''). */
    readonly agentId: string,
    /** Quoted schema name. */
    private readonly schemaSql: string,
    schema: string,
  ) {
    super(db, undefined, { schema });
    this.ownerSql = `SELECT agent_id FROM ${schemaSql}.threads WHERE thread_id = $1`;
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
    return super.getTuple(config);
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
    return super.put(config, checkpoint, metadata, newVersions);
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
