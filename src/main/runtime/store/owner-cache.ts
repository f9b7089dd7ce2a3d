// The owners of threads this process has looked up, so a turn on a known thread asks the
// database nothing more (docs/security.md, "Whose conversation is whose"). A thread's owner
// (agent and user) changes only when it is deleted or its agent id is migrated: this process
// forgets its entries when it does either, and an entry expires after OWNER_CACHE_TTL_MS so a
// delete or a migration made elsewhere (another replica, another process on the SQLite file)
// is seen within that time.

export const OWNER_CACHE_TTL_MS = 30_000;
const MAX_ENTRIES = 10_000;

/** The owner of a thread: the agent (spec 2.4) and the user (the principal that started it). */
export interface ThreadOwners {
  agentId: string;
  user: string;
}

export class OwnerCache {
  private readonly entries = new Map<string, { owners: ThreadOwners; until: number }>();

  get(threadId: string): ThreadOwners | undefined {
    const e = this.entries.get(threadId);
    if (!e) return undefined;
    if (e.until > Date.now()) return e.owners;
    this.entries.delete(threadId);
    return undefined;
  }

  set(threadId: string, owners: ThreadOwners): void {
    this.entries.delete(threadId);
    // Insertion order: the first key is the oldest entry.
    if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(threadId, { owners, until: Date.now() + OWNER_CACHE_TTL_MS });
  }

  delete(threadId: string): void {
    this.entries.delete(threadId);
  }

  clear(): void {
    this.entries.clear();
  }
}

/** What claiming a thread for a user found (MemoryStore.claimThread). */
export type ThreadClaim = 'claimed' | 'owner' | 'other';

/** The claim's answer once the thread's owners are known. */
export function claimResult(owners: ThreadOwners, agentId: string, user: string, inserted: boolean): ThreadClaim {
  if (owners.agentId !== agentId || owners.user !== user) return 'other';
  return inserted ? 'claimed' : 'owner';
}
