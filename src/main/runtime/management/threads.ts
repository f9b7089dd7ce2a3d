// Thread endpoints (spec 2.4, 4.2 rules 1, 5.3): every operation is authorised by ownership
// through AGENT_ID; another agent's thread is FORBIDDEN, an unknown one THREAD_NOT_FOUND.
import type { MemoryConfig } from '../project/registry.ts';
import type { MemoryStore } from '../store/types.ts';
import { MANAGEMENT_ERRORS, ManagementError, type ManagementCode } from './envelope.ts';
import { requireMemory } from './memory.ts';
import { decodeCursor, encodeCursor, pageLimit } from './thread-pages.ts';

export interface ThreadServiceDeps {
  memory: Pick<MemoryConfig, 'enabled'>;
  /** AGENT_ID: the owner of this agent's threads. */
  agentId: string | null;
  store: Pick<MemoryStore, 'threadOwner' | 'listThreadPage' | 'readTranscript' | 'deleteThread' | 'deleteAllThreads' | 'migrateAgentId'>;
}

/** GET /api/v1/status `thread_management` (docs/management-api.md): whether the thread
 * endpoints answer and, when they do not, the error code they answer and why. */
export type ThreadManagementStatus = { state: 'on'; agent_id: string } | { state: 'off'; reason: ManagementCode; http_status: number; message: string };

export class ThreadService {
  constructor(private readonly deps: ThreadServiceDeps) {}

  /** This agent's id; MEMORY_DISABLED or AGENT_ID_REQUIRED when thread operations cannot run. */
  agentId(): string {
    requireMemory(this.deps.memory);
    const id = this.deps.agentId;
    if (!id) {
      throw new ManagementError(
        'AGENT_ID_REQUIRED',
        "AGENT_ID is not set, and thread operations act on the threads this agent owns. Set it in the environment or in the project's .env (the examples' .env.example sets it).",
      );
    }
    return id;
  }

  /** What the thread endpoints would answer now (the same checks, asked when shown). */
  status(): ThreadManagementStatus {
    try {
      return { state: 'on', agent_id: this.agentId() };
    } catch (err) {
      if (err instanceof ManagementError) return { state: 'off', reason: err.code, http_status: MANAGEMENT_ERRORS[err.code], message: err.message };
      throw err;
    }
  }

  /** Checks the thread exists and belongs to this agent. */
  private async owned(threadId: string): Promise<string> {
    const agentId = this.agentId();
    if (!threadId || !threadId.trim()) throw new ManagementError('MISSING_THREAD_ID', 'A thread_id is required.');
    const owner = await this.deps.store.threadOwner(threadId);
    if (owner === null) throw new ManagementError('THREAD_NOT_FOUND', `No data for thread '${threadId}'.`, { thread_id: threadId });
    if (owner !== agentId) throw new ManagementError('FORBIDDEN', `Thread '${threadId}' belongs to another agent.`, { thread_id: threadId });
    return agentId;
  }

  /** A page of this agent's threads, oldest first; with `user`, only those that user owns
   * (docs/security.md). `next_cursor` asks for the next page, null after the last
   * (management/thread-pages.ts, docs/management-api.md). */
  async list(query: { user?: string; limit?: string; cursor?: string } = {}) {
    const agentId = this.agentId();
    const { user } = query;
    const limit = pageLimit(query.limit);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    // One more than asked for tells whether another page follows.
    const rows = await this.deps.store.listThreadPage(agentId, { user, limit: limit + 1, after });
    const page = rows.slice(0, limit);
    const next_cursor = rows.length > limit ? encodeCursor(page[page.length - 1]) : null;
    const threads = page.map((r) => r.threadId);
    return user === undefined ? { agent_id: agentId, threads, limit, next_cursor } : { agent_id: agentId, user, threads, limit, next_cursor };
  }

  async messages(threadId: string) {
    await this.owned(threadId);
    // The transcript holds every message; the checkpointed working state is bounded.
    return { thread_id: threadId, messages: await this.deps.store.readTranscript(threadId) };
  }

  async delete(threadId: string) {
    const agentId = await this.owned(threadId);
    const deleted = await this.deps.store.deleteThread(threadId);
    return { agent_id: agentId, thread_id: threadId, deleted };
  }

  /** Every thread of this agent (the route checked the query's all=true). */
  async deleteAll() {
    const agentId = this.agentId();
    const d = await this.deps.store.deleteAllThreads(agentId);
    return {
      agent_id: agentId,
      deleted: {
        checkpoints: d.checkpoints,
        checkpoint_blobs: d.checkpoint_blobs,
        persistent_memory: d.persistent_memory,
        checkpoint_writes: d.checkpoint_writes,
      },
    };
  }

  async migrate({ old_id: oldId, new_id: newId }: { old_id: string; new_id: string }) {
    this.agentId();
    const migrated = await this.deps.store.migrateAgentId(oldId, newId);
    return { old_id: oldId, new_id: newId, migrated_threads: migrated };
  }
}
