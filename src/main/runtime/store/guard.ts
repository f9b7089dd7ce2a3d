// The store's edge (docs/deployment.md, "When the store is unreachable"; D-50): every error a
// store call raises because the database is unreachable or unwritable leaves the store as a
// StoreUnavailableError (unavailable.ts), whichever part called it (the A2A task store, a
// checkpointer inside a turn, the management API, the probes). Only here is a connection
// failure known to be the database's: the same ECONNREFUSED from a model call stays a model
// failure (execution/errors.ts).
//
// It also keeps the outage's state: the first failure is logged once (with the driver's
// detail, which no client sees), the recovery once, and while an outage is noted the SQLite
// store's ping also checks that a write could start (a file whose write lock another process
// holds still answers reads). PostgreSQL needs no reconnecting of ours: its pool opens new
// connections on demand, so the first query after the server is back succeeds.
import type { MemoryStore } from './types.ts';
import { asStoreError, StoreUnavailableError } from './unavailable.ts';

/** Store methods whose success shows the database takes writes again (a task store's save is
 * not one: an in-progress update resolves before it is written, store/taskStore.ts). */
const WRITES = new Set(['put', 'putWrites', 'appendTranscript', 'putMemory']);

/** The ping of a store that can also check for a write (store/sqlite.ts). */
interface WriteProbe {
  pingWrite?(): Promise<void>;
}

/** Where the outage's start and end are told (the runtime's pino logger). */
export interface GuardLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

interface Outage {
  since: number;
  detail: string;
}

export class StoreGuard {
  private outage: Outage | null = null;
  private readonly wrapped = new WeakMap<object, object>();

  constructor(private readonly log: GuardLog) {}

  /** Whether an outage is noted now (cleared by a successful ping or write). */
  get down(): boolean {
    return this.outage !== null;
  }

  /** `err` as the store error it is; an outage is noted (and logged when it starts). */
  note(err: unknown): unknown {
    const e = asStoreError(err);
    if (e instanceof StoreUnavailableError && !this.outage) {
      this.outage = { since: Date.now(), detail: e.detail };
      this.log.warn({ detail: e.detail }, 'the store is unreachable: requests that need it answer STORE_UNAVAILABLE until it is back');
    }
    return e;
  }

  recovered(): void {
    if (!this.outage) return;
    const seconds = Math.round((Date.now() - this.outage.since) / 100) / 10;
    this.outage = null;
    this.log.info({ outage_s: seconds }, 'the store answers again');
  }

  /** `store` with every call's outage translated; its checkpointers and task store too. */
  store<S extends MemoryStore>(store: S): S {
    return this.wrap(store, (name, target) => {
      if (name !== 'ping') return undefined;
      return async () => {
        try {
          await target.ping();
          if (this.outage) await (target as WriteProbe).pingWrite?.();
        } catch (err) {
          throw this.note(err);
        }
        this.recovered();
      };
    });
  }

  /** Any other store part (the shared task table's view), its calls' outages translated. */
  part<T extends object>(target: T): T {
    return this.wrap(target);
  }

  private wrap<T extends object>(target: T, special: (name: string, target: T) => ((...args: unknown[]) => unknown) | undefined = () => undefined): T {
    const known = this.wrapped.get(target);
    if (known) return known as T;
    type Fn = (...args: unknown[]) => unknown;
    /** Each method's wrapper, made once (store calls are on every turn's path). */
    const made = new Map<string, { of: Fn; fn: Fn }>();
    const proxy = new Proxy(target, {
      // Read on the target itself, and methods run with it as `this`: private state stays its own.
      get: (t, prop) => {
        const value = Reflect.get(t, prop) as unknown;
        if (typeof prop !== 'string' || typeof value !== 'function' || prop === 'constructor') return value;
        const known = made.get(prop);
        if (known?.of === value) return known.fn;
        const fn = special(prop, t) ?? ((...args: unknown[]) => this.call(t, prop, value as Fn, args));
        made.set(prop, { of: value as Fn, fn });
        return fn;
      },
    });
    this.wrapped.set(target, proxy);
    return proxy;
  }

  private call(target: object, name: string, fn: (...a: unknown[]) => unknown, args: unknown[]): unknown {
    let out: unknown;
    try {
      out = fn.apply(target, args);
    } catch (err) {
      throw this.note(err);
    }
    if (out instanceof Promise) {
      return out.then(
        (v: unknown) => {
          if (WRITES.has(name)) this.recovered();
          return name === 'checkpointer' || name === 'taskStore' ? this.wrapObject(v) : v;
        },
        (err: unknown) => {
          throw this.note(err);
        },
      );
    }
    if (name === 'checkpointer' || name === 'taskStore') return this.wrapObject(out);
    if (isAsyncIterator(out)) return this.iterator(out);
    return out;
  }

  private wrapObject(v: unknown): unknown {
    return v && typeof v === 'object' ? this.wrap(v) : v;
  }

  /** A checkpointer's list(): each step's outage translated. */
  private async *iterator<T>(it: AsyncGenerator<T>): AsyncGenerator<T> {
    try {
      yield* it;
    } catch (err) {
      throw this.note(err);
    }
  }
}

function isAsyncIterator(v: unknown): v is AsyncGenerator<unknown> {
  return !!v && typeof v === 'object' && typeof (v as AsyncGenerator).next === 'function' && Symbol.asyncIterator in v;
}
