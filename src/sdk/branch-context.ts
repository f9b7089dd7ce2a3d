// Which fan-out branch the code running now belongs to, so a model call made inside a branch is
// counted under it (`model.call`'s `branch_span_id`, docs/runtime-traces.md). fanOut runs each
// branch inside it; the model-usage callback reads it when a call starts (it is awaited in the
// caller's async context, usage.ts). The runtime and the project may hold separate copies of
// the SDK, so the one AsyncLocalStorage lives on globalThis.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface BranchContext {
  span_id: string;
  /** `node[label]`. */
  node: string;
}

const KEY = Symbol.for('agent-studio.fanout.branch');
const g = globalThis as unknown as Record<symbol, AsyncLocalStorage<BranchContext> | undefined>;
const storage: AsyncLocalStorage<BranchContext> = (g[KEY] ??= new AsyncLocalStorage<BranchContext>());

export function runInBranch<R>(branch: BranchContext | null, fn: () => Promise<R>): Promise<R> {
  return branch ? storage.run(branch, fn) : fn();
}

export function currentBranch(): BranchContext | null {
  return storage.getStore() ?? null;
}
