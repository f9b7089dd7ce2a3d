// The append path of run events (spec 4.3 rule 4, 6.2). Each append gets the run's next seq
// synchronously, is published on the bus at once, and joins a pending batch that is written
// in ONE transaction every few milliseconds or every `maxBatch` events: a run streaming
// thousands of deltas never costs one transaction per delta (docs/playground-api.md).
//
// Consistency for replay: an event is always either in `pending` or in the database (the
// flush moves a whole batch in one synchronous transaction), and `read` answers from both,
// so a reader that subscribes to the bus and then reads up to `lastSeq` in the same tick
// sees every event exactly once.
import type { Logger } from 'pino';
import { TERMINAL_STATES, type EventKind, type RunEvent, type RunStatus } from '../../../shared/playground.ts';
import type { PlaygroundStore, RunPatch, StoredEvent } from '../store/store.ts';
import type { EventBus } from './bus.ts';

export interface EventLogOptions {
  /** Longest time an appended event waits before its batch is written. */
  flushMs?: number;
  /** A batch this large is written at once. */
  maxBatch?: number;
  logger?: Logger;
}

/** Whether a stored event (its kind and JSON text, as `read` returns them) is the run.status
 * that ends its run: the log owns the stored text, so it is decoded here and nowhere else. */
export function endsRun(kind: string, body: string): boolean {
  return kind === 'run.status' && TERMINAL_STATES.includes((JSON.parse(body) as { status: RunStatus }).status);
}

type Payload<K extends EventKind> = Omit<Extract<RunEvent, { kind: K }>, 'seq' | 'run_id' | 'ts' | 'kind'>;

export class EventLog {
  private pending: StoredEvent[] = [];
  /** Changes of runs' rows written with the next batch, before its events. */
  private patches = new Map<string, RunPatch>();
  /** Other row writes that need no commit of their own, written after the batch's events (D-112). */
  private writes: (() => void)[] = [];
  private readonly seqs = new Map<string, number>();
  private readonly closed = new Set<string>();
  /** Runs that ended since the last flush: their seq counters can go once written. */
  private endedSinceFlush: string[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** After close(): the store is about to close, nothing more is accepted. */
  private shutDown = false;
  private readonly flushMs: number;
  private readonly maxBatch: number;
  /** Counters for docs/performance.md and the benchmark. */
  readonly stats = { appended: 0, batches: 0 };

  constructor(
    private readonly store: PlaygroundStore,
    private readonly bus: EventBus,
    private readonly opts: EventLogOptions = {},
  ) {
    this.flushMs = opts.flushMs ?? 5;
    this.maxBatch = opts.maxBatch ?? 1000;
  }

  /** Appends one event; answers null when the run already ended (its terminal status is
   * the last event of its stream, so late arrivals such as a trace after a cancel are dropped). */
  append<K extends EventKind>(runId: string, kind: K, payload: Payload<K>): RunEvent | null {
    if (this.shutDown || this.closed.has(runId)) return null;
    const seq = (this.seqs.get(runId) ?? this.store.maxStoredSeq(runId)) + 1;
    this.seqs.set(runId, seq);
    const event = { seq, run_id: runId, ts: new Date().toISOString(), kind, ...payload } as unknown as RunEvent;
    const body = JSON.stringify(event);
    const terminal = kind === 'run.status' && TERMINAL_STATES.includes((payload as unknown as { status: RunStatus }).status);
    this.pending.push({ run_id: runId, seq, kind, body });
    this.stats.appended += 1;
    if (terminal) {
      this.closed.add(runId);
      this.endedSinceFlush.push(runId);
    }
    this.bus.publish({ run_id: runId, seq, kind, body, terminal });
    if (terminal || this.pending.length >= this.maxBatch) this.flush();
    else if (!this.timer) this.timer = setTimeout(() => this.flush(), this.flushMs);
    return event;
  }

  /** A change of the run's row that is written with the next batch (a run's A2A ids and its
   * scores so far, which the runtime's stream and trace posts bring): one commit fewer each
   * (docs/playground-api.md, "Storage"). A later patch of the same column wins. */
  patchRun(runId: string, patch: RunPatch): void {
    if (this.shutDown) return;
    this.patches.set(runId, { ...this.patches.get(runId), ...patch });
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.flushMs);
  }

  /** A row write that needs no commit of its own (an experiment case's result, D-112): it runs
   * in the transaction of the next batch, which a status write, a run's end or the batch's
   * timer commits within `flushMs`. Statements of this store only: a write fails when the
   * batch would, and is tried again with it. After close() it runs at once. */
  later(write: () => void): void {
    if (this.shutDown) return write();
    this.writes.push(write);
    if (!this.timer) this.timer = setTimeout(() => this.flush(), this.flushMs);
  }

  /** Takes the run's waiting row change out of the batch, for a write of the row that
   * carries it (newer values of the same columns win over it). */
  takePatch(runId: string): RunPatch {
    const patch = this.patches.get(runId) ?? {};
    this.patches.delete(runId);
    return patch;
  }

  /** The highest seq appended for the run (written or pending). */
  lastSeq(runId: string): number {
    // Runs appended to by this process are in memory; others (ended, or from an earlier
    // process) are read without caching, so readers of old runs cost no memory.
    return this.seqs.get(runId) ?? this.store.maxStoredSeq(runId);
  }

  isClosed(runId: string): boolean {
    return this.closed.has(runId);
  }

  /** Marks a run whose terminal event is already stored (e.g. from an earlier process). */
  markClosed(runId: string): void {
    this.closed.add(runId);
  }

  /** Writes the pending batch, and the row changes and writes waiting with it, in one transaction. */
  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (this.pending.length === 0 && this.patches.size === 0 && this.writes.length === 0) return;
    const batch = this.pending;
    const patches = this.patches;
    const writes = this.writes;
    try {
      this.store.transaction(() => {
        for (const [runId, patch] of patches) this.store.updateRun(runId, patch);
        this.store.insertEvents(batch);
        for (const write of writes) write();
      });
      this.pending = [];
      this.patches = new Map();
      this.writes = [];
      this.stats.batches += 1;
    } catch (err) {
      // Keep the batch for the next attempt rather than lose events.
      this.opts.logger?.error({ err, events: batch.length }, 'writing run events failed');
      if (!this.timer) this.timer = setTimeout(() => this.flush(), 100);
      return;
    }
    for (const runId of this.endedSinceFlush) this.seqs.delete(runId);
    this.endedSinceFlush = [];
  }

  /** Events of a run with after < seq <= upTo, oldest first, from the database and the
   * pending batch. */
  read(runId: string, after: number, upTo: number, limit: number): { seq: number; kind: string; body: string }[] {
    const rows = this.store.readEvents(runId, after, upTo, limit);
    if (rows.length >= limit) return rows;
    const from = rows.length ? rows[rows.length - 1].seq : after;
    for (const e of this.pending) {
      if (rows.length >= limit) break;
      if (e.run_id === runId && e.seq > from && e.seq <= upTo) rows.push({ seq: e.seq, kind: e.kind, body: e.body });
    }
    return rows;
  }

  /** Drops in-memory state of deleted runs (their pending events are written first). */
  forget(runIds: readonly string[]): void {
    this.flush();
    for (const id of runIds) {
      this.seqs.delete(id);
      this.closed.add(id);
    }
  }

  close(): void {
    this.flush();
    this.shutDown = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
