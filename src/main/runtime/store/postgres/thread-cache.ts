// What a replica knows of its threads on PostgreSQL without asking (docs/decisions.md D-85):
//   - the latest checkpoint it wrote itself, per thread, serialised as stored (so a reader gets
//     fresh objects, as from a read);
//   - a thread's head as the database had it at the turn's start: its owner, its latest
//     checkpoint id and its running summary, read in the same round trip as the waiting-task
//     lookup every warm message makes (or known from a fresh claim: a thread just claimed has
//     nothing yet).
// The cached checkpoint answers a turn's read only when the head, read at that turn's start,
// names it: another replica that wrote the thread since (a message sent to it, a delete, an
// agent-id migration) changed the head, and the read goes to the database. A head is used
// once per reader and only for HEAD_MS: it is the turn's view of the thread, never a later one.
import type { Checkpoint } from '@langchain/langgraph-checkpoint';

export const HEAD_MS = 2_000;
const MAX = 1_024;

export interface ThreadHead {
  owner: string | null;
  checkpointId: string | null;
  /** The summary's JSON text; null when the thread has none. */
  summary: string | null;
  at: number;
  /** Readers that took it (each once). */
  used: Set<'checkpoint' | 'summary'>;
}

/** A checkpoint as written: what a row read would give (SELECT_VALUES_SQL's columns), its
 * checkpoint and metadata as the JSON text written (flat strings: nothing for the garbage
 * collector to trace while the thread waits for its next turn, D-110). */
export interface CachedCheckpoint {
  agent: string;
  id: string;
  parent: string | null;
  /** The checkpoint without channel values, JSON. */
  checkpoint: string;
  /** JSON. */
  metadata: string;
  /** Per channel: its version, type and serialised value. */
  blobs: Map<string, { version: string; type: string; blob: Uint8Array | null }>;
}

function bounded<K, V>(map: Map<K, V>, key: K, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX) map.delete(map.keys().next().value as K);
}

export class ThreadCache {
  private readonly heads = new Map<string, ThreadHead>();
  private readonly latest = new Map<string, CachedCheckpoint>();

  setHead(thread: string, head: Omit<ThreadHead, 'at' | 'used'>): void {
    bounded(this.heads, thread, { ...head, at: Date.now(), used: new Set() });
  }

  /** The thread's owner as the head read at the turn's start had it, while fresh (not taken). */
  ownerOf(thread: string): string | null | undefined {
    const head = this.heads.get(thread);
    return head && Date.now() - head.at <= HEAD_MS ? head.owner : undefined;
  }

  /** The thread's head for `reader`, once, while fresh. */
  takeHead(thread: string, reader: 'checkpoint' | 'summary'): ThreadHead | undefined {
    const head = this.heads.get(thread);
    if (!head || head.used.has(reader) || Date.now() - head.at > HEAD_MS) return undefined;
    head.used.add(reader);
    return head;
  }

  /** The checkpoint this replica last wrote to `thread`, if it is `id`. */
  checkpoint(thread: string, id: string | null): CachedCheckpoint | undefined {
    const c = this.latest.get(thread);
    return c && id !== null && c.id === id ? c : undefined;
  }

  /** Records a checkpoint this replica wrote (its channel versions `versions`); blobs not
   * rewritten come from the one before. */
  wrote(
    thread: string,
    c: Omit<CachedCheckpoint, 'blobs'>,
    versions: Checkpoint['channel_versions'],
    blobs: { channel: string; version: string; type: string; blob: Uint8Array | null }[],
  ): void {
    const before = this.latest.get(thread);
    const all = new Map<string, { version: string; type: string; blob: Uint8Array | null }>();
    for (const [channel, version] of Object.entries(versions)) {
      const fresh = blobs.find((b) => b.channel === channel && b.version === String(version));
      const old = before?.agent === c.agent && before.blobs.get(channel)?.version === String(version) ? before.blobs.get(channel) : undefined;
      const blob = fresh ?? old;
      // A channel whose value this replica never saw: the thread is read from the database.
      if (!blob) return void this.latest.delete(thread);
      all.set(channel, { version: String(version), type: blob.type, blob: blob.blob });
    }
    bounded(this.latest, thread, { ...c, blobs: all });
  }

  forget(thread: string): void {
    this.latest.delete(thread);
    this.heads.delete(thread);
  }

  clear(): void {
    this.latest.clear();
    this.heads.clear();
  }
}
