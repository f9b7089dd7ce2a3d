// Parallel fan-out with a concurrency cap (spec 8): extra branches wait and run as earlier
// ones finish; every result is collected in input order. p-limit does the queueing.
import pLimit from 'p-limit';

export interface FanOutOptions {
  /** Cap for this call site; defaults to the runtime's DEFAULT_FANOUT_MAX_CONCURRENCY. */
  maxConcurrency?: number;
  signal?: AbortSignal;
}

// The runtime and the project may hold separate copies of this module (the project's
// TypeScript loads in its own tsx namespace), so the default lives on globalThis.
const CAP_KEY = Symbol.for('agent-studio.fanout.defaultCap');
const shared = globalThis as unknown as Record<symbol, number | undefined>;

/** Set by the runtime at start from DEFAULT_FANOUT_MAX_CONCURRENCY. */
export function setDefaultFanoutConcurrency(cap: number): void {
  if (!Number.isInteger(cap) || cap <= 0) throw new RangeError(`fan-out cap must be a positive integer, got ${cap}`);
  shared[CAP_KEY] = cap;
}

export function defaultFanoutConcurrency(): number {
  return shared[CAP_KEY] ?? 4;
}

export async function fanOut<T, R>(
  items: readonly T[],
  task: (item: T, index: number) => Promise<R>,
  options: FanOutOptions = {},
): Promise<R[]> {
  const cap = options.maxConcurrency ?? defaultFanoutConcurrency();
  if (!Number.isInteger(cap) || cap <= 0) throw new RangeError(`maxConcurrency must be a positive integer, got ${cap}`);
  const limit = pLimit(cap);
  return Promise.all(
    items.map((item, index) =>
      limit(async () => {
        options.signal?.throwIfAborted();
        return task(item, index);
      }),
    ),
  );
}
