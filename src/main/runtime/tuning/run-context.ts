// LangChain's per-runnable run context without building a LangSmith RunTree when nothing
// traces (D-40).
//
// Every runnable call LangGraph makes (nodes, channel writers, branches: about 37 an
// invocation of the example) goes through AsyncLocalStorageProviderSingleton.runWithConfig,
// which stores the call's config for getConfig() in the async context. When no LangSmith
// tracer is configured it still constructs a whole `RunTree({ tracingEnabled: false })` for
// that: fifteen defineProperty calls, a UUIDv7, two date strings, environment reads. A
// profile of the runtime under load put 11 % of its CPU there.
//
// The replacement keeps everything readers of the context use and skips the construction:
//   - a LangSmith tracer among the call's callbacks (LANGSMITH_TRACING, or a tracer passed
//     in): LangChain's own function runs, unchanged, so traces are what they were;
//   - otherwise the context holds a light object with the same fields readers look at:
//     `extra[lc:child_config]` (getConfig, ensureConfig), `tracingEnabled: false` (so nested
//     calls skip the tracing environment reads, as they did), the context variables
//     (setContextVariable/getContextVariable). Its prototype is one disabled RunTree built
//     at install, so LangSmith's isRunTree() still says yes and a `traceable()` called inside
//     a node, or setContextVariable(), gets a disabled parent exactly as before;
//   - with `avoidCreatingRootRunTree` (iterators), nothing is built, as before.
// LIGHT_RUN_CONTEXT=off leaves LangChain's function in place.
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { CallbackManager } from '@langchain/core/callbacks/manager';
import type { RunnableConfig } from '@langchain/core/runnables';

const LC_CHILD_KEY = Symbol.for('lc:child_config');
const CONTEXT_VARIABLES_KEY = Symbol.for('lc:context_variables');

type Provider = typeof AsyncLocalStorageProviderSingleton;
type RunWithConfig = Provider['runWithConfig'];
type Store = Record<PropertyKey, unknown> | undefined;
type Storage = { getStore(): Store; run<T>(store: unknown, callback: () => T): T };

/** Whether the call's callbacks (inherited or tracing from the environment) include a LangSmith tracer. */
function hasTracer(config: RunnableConfig | undefined): boolean {
  const manager = CallbackManager._configureSync(config?.callbacks, undefined, config?.tags, undefined, config?.metadata);
  return !!manager?.handlers?.some((h) => h?.name === 'langchain_tracer');
}

/** LangSmith's tracing switches, as LangChain's isTracingEnabled() reads them. */
const TRACING_ENV = ['LANGSMITH_TRACING_V2', 'LANGCHAIN_TRACING_V2', 'LANGSMITH_TRACING', 'LANGCHAIN_TRACING'];

/** Whether a configure hook (registerConfigureHook, kept among the context variables) is set. */
function hasConfigureHooks(store: Store): boolean {
  const vars = store?.[CONTEXT_VARIABLES_KEY] as Record<symbol, unknown> | undefined;
  if (vars === undefined) return false;
  return Object.getOwnPropertySymbols(vars).some((s) => s.description === 'lc:configure_hooks' && Array.isArray(vars[s]) && vars[s].length > 0);
}

/** hasTracer(config) for a call made in context `store`, the way LangChain's callback
 * configuration decides it, without building a CallbackManager for it (D-115): under a run tree
 * that does not trace (a light context, a disabled RunTree) inherited tracers are dropped and
 * none is added; under one that traces one is added; otherwise a tracer comes from the call's
 * callbacks or from LangSmith's tracing switches. A configure hook may add any handler: then
 * LangChain itself is asked. Asking for every runnable call had cost about 2 % of the
 * runtime's CPU (docs/performance.md, "The 0.3 path, cut again"). */
function tracerFor(store: Store, config: RunnableConfig | undefined): boolean {
  if (hasConfigureHooks(store)) return hasTracer(config);
  const tracing = store?.tracingEnabled;
  if (tracing === false) return false;
  if (tracing === true) return true;
  const callbacks = config?.callbacks as { name?: unknown }[] | { handlers?: { name?: unknown }[] } | undefined;
  const handlers = Array.isArray(callbacks) ? callbacks : callbacks?.handlers;
  if (handlers?.some((h) => h?.name === 'langchain_tracer')) return true;
  return TRACING_ENV.some((name) => process.env[name] === 'true');
}

/** Installs the light run context on LangChain's provider; returns the uninstaller. */
export function installLightRunContext(provider: Provider = AsyncLocalStorageProviderSingleton): () => void {
  const original = provider.runWithConfig;
  // Every light context is a disabled RunTree's shallow copy: LangSmith's prototype (so
  // isRunTree() holds and createChild works) and the fields of one disabled RunTree built by
  // LangChain's own function once, on first use, with its own child_runs, extra (metadata and
  // the config) and tracingEnabled. Copying fields is a fraction of what building a RunTree
  // costs. Its id, trace_id and start time are that first RunTree's: a disabled run is never
  // sent anywhere, so nothing reads them as the run's own.
  let template: { proto: object; fields: Record<string, unknown> } | null = null;
  const light = (storage: Storage, config: RunnableConfig): Record<PropertyKey, unknown> => {
    if (!template) {
      // Built in an empty context, so it carries none of the first caller's context variables.
      const built = storage.run(undefined, () => original.call(provider, {}, () => storage.getStore(), false)) as unknown;
      if (built && typeof built === 'object') template = { proto: Object.getPrototypeOf(built) as object, fields: { ...built } };
    }
    // A spread then the prototype: 0.2 µs, where Object.assign took 1.4 and a RunTree 18.
    const store = { ...template?.fields, child_runs: [], extra: { metadata: {}, [LC_CHILD_KEY]: config }, tracingEnabled: false };
    return Object.setPrototypeOf(store, template?.proto ?? Object.prototype) as Record<PropertyKey, unknown>;
  };

  const runWithConfig = function (this: Provider, config: RunnableConfig, callback: () => unknown, avoidCreatingRootRunTree?: boolean) {
    const storage = this.getInstance() as Storage;
    const previous = storage.getStore();
    if (tracerFor(previous, config)) return original.call(this, config, callback, avoidCreatingRootRunTree);
    let store = avoidCreatingRootRunTree ? undefined : light(storage, config);
    if (previous !== undefined && previous[CONTEXT_VARIABLES_KEY] !== undefined) {
      store ??= {};
      store[CONTEXT_VARIABLES_KEY] = previous[CONTEXT_VARIABLES_KEY];
    }
    return storage.run(store, callback);
  } as RunWithConfig;

  provider.runWithConfig = runWithConfig;
  return () => {
    if (provider.runWithConfig === runWithConfig) provider.runWithConfig = original;
  };
}

let installed = false;
/** Installs the light run context in this process, once. */
export function useLightRunContext(): void {
  if (installed) return;
  installed = true;
  installLightRunContext();
}
