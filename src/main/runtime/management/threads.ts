// Thread endpoints (spec 2.4, 4.2 rules 1, 5.3): every operation is authorised by ownership
// through AGENT_ID; another agent's thread is FORBIDDEN, an unknown one THREAD_NOT_FOUND.
import type { RuntimeContext } from '../start.ts';
import { ManagementError } from './envelope.ts';
import { requireMemory } from './memory.ts';

export class ThreadService {
  constructor(private readonly ctx: RuntimeContext) {}

  private agentId(): string {
    requireMemory(this.ctx);
    const id = this.ctx.settings.agentId;
    if (!id) throw new ManagementError('AGENT_ID_REQUIRED', 'Set AGENT_ID: thread operations act on the threads this agent owns.');
    return id;
  }

  /** Checks the thread exists and belongs to this agent. */
  private async owned(threadId: string): Promise<string> {
    const agentId = this.agentId();
    if (!threadId || !threadId.trim()) throw new ManagementError('MISSING_THREAD_ID', 'A thread_id is required.');
    const owner = await this.ctx.store.threadOwner(threadId);
    if (owner === null) throw new ManagementError('THREAD_NOT_FOUND', `No data for thread '${threadId}'.`, { thread_id: threadId });
    if (owner !== agentId) throw new ManagementError('FORBIDDEN', `Thread '${threadId}' belongs to another agent.`, { thread_id: threadId });
    return agentId;
  }

  async list() {
    const agentId = this.agentId();
    return { agent_id: agentId, threads: await this.ctx.store.listThreads(agentId) };
  }

  async messages(threadId: string) {
    await this.owned(threadId);
    // The transcript holds every message; the checkpointed working state is bounded.
    return { thread_id: threadId, messages: await this.ctx.store.readTranscript(threadId) };
  }

  async delete(threadId: string) {
    const agentId = await this.owned(threadId);
    const deleted = await this.ctx.store.deleteThread(threadId);
    return { agent_id: agentId, thread_id: threadId, deleted };
  }

  async deleteAll(all: unknown) {
    const agentId = this.agentId();
    if (all !== 'true') {
      throw new ManagementError('INVALID_PARAM', "Deleting every thread needs the query all=true; to delete one thread use DELETE /api/v1/memory/threads/{thread_id}.", { field: 'all' });
    }
    const d = await this.ctx.store.deleteAllThreads(agentId);
    return { agent_id: agentId, deleted: { checkpoints: d.checkpoints, checkpoint_blobs: d.checkpoint_blobs, persistent_memory: d.persistent_memory, checkpoint_writes: d.checkpoint_writes } };
  }

  async migrate(body: Record<string, unknown>) {
    this.agentId();
    for (const k of ['old_id', 'new_id'] as const) {
      if (body[k] === undefined) throw new ManagementError('INVALID_PARAM', `'${k}' is required.`, { field: k });
      if (typeof body[k] !== 'string' || !(body[k] as string).trim()) throw new ManagementError('INVALID_PARAM', `'${k}' must be a non-empty string.`, { field: k });
    }
    const oldId = body.old_id as string;
    const newId = body.new_id as string;
    if (oldId === newId) throw new ManagementError('INVALID_PARAM', "'old_id' and 'new_id' must differ.", { field: 'new_id' });
    const migrated = await this.ctx.store.migrateAgentId(oldId, newId);
    return { old_id: oldId, new_id: newId, migrated_threads: migrated };
  }
}
