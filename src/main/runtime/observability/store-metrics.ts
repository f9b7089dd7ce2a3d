// The memory store as the rest of the runtime sees it, timed (docs/operations.md, "Metrics"):
// every call that answers with a promise (the store's own methods, its checkpointer's and its
// A2A task store's) is observed with its latency and, when it rejects, counted as an error;
// task saves also tell the metrics where each turn stands (metrics.ts, `taskSaved`). Calls run
// on the real objects (their `this`), so the stores need not know they are watched.
import type { Task } from '@a2a-js/sdk';
import type { TaskState } from '@a2a-js/sdk';
import type { MemoryStore } from '../store/types.ts';

/** What is told of each call (metrics.ts). */
export interface Observer {
  storeOperation(operation: string, seconds: number, ok: boolean): void;
  taskSaved(taskId: string, state: TaskState): void;
}

/** `target` with each method timed as `<prefix>.<method>`; `onCall` sees each call's arguments. */
function timed<T extends object>(target: T, prefix: string, m: Observer, onCall?: (method: string, args: unknown[]) => void): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop, t);
      if (typeof value !== 'function' || typeof prop !== 'string' || prop === 'constructor') return value;
      let fn = wrapped.get(prop);
      if (!fn) {
        const operation = `${prefix}.${prop}`;
        fn = (...args: unknown[]) => {
          onCall?.(prop, args);
          const started = performance.now();
          let result: unknown;
          try {
            result = (value as (...a: unknown[]) => unknown).apply(t, args);
          } catch (err) {
            m.storeOperation(operation, (performance.now() - started) / 1000, false);
            throw err;
          }
          if (!(result instanceof Promise)) return result; // sync helpers and async generators pass unobserved
          return result.then(
            (v) => {
              m.storeOperation(operation, (performance.now() - started) / 1000, true);
              return v;
            },
            (err: unknown) => {
              m.storeOperation(operation, (performance.now() - started) / 1000, false);
              throw err;
            },
          );
        };
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

/** The store, its checkpointers and its task store, timed. */
export function instrumentStore(store: MemoryStore, m: Observer): MemoryStore {
  const savers = new Map<string, ReturnType<MemoryStore['checkpointer']>>();
  let tasks: ReturnType<MemoryStore['taskStore']> | null = null;
  const outer = timed(store, 'store', m);
  return new Proxy(outer, {
    get(t, prop) {
      if (prop === 'checkpointer')
        return (agentId: string) => {
          let s = savers.get(agentId);
          if (!s) savers.set(agentId, (s = timed(store.checkpointer(agentId), 'checkpoint', m)));
          return s;
        };
      if (prop === 'taskStore')
        return () =>
          (tasks ??= timed(store.taskStore(), 'tasks', m, (method, args) => {
            const task = args[0] as Task | undefined;
            // saveNotifying (D-110, D-114) is a save whose push notification rides along.
            if ((method === 'save' || method === 'saveNotifying') && task?.status) m.taskSaved(task.id, task.status.state);
          }));
      return Reflect.get(t, prop);
    },
  });
}
