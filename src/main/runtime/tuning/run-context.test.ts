// The light run context (run-context.ts) keeps what LangGraph nodes and LangSmith rely on:
// getConfig() inside nodes and nested runnables, context variables, traceable() helpers,
// and, with a LangSmith tracer configured, the same runs posted to LangSmith's API (here a
// local server speaking its run-ingestion endpoints).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Annotation, END, START, StateGraph, getConfig } from '@langchain/langgraph';
import { RunnableLambda } from '@langchain/core/runnables';
import { getContextVariable, registerConfigureHook, setContextVariable } from '@langchain/core/context';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { LangChainTracer } from '@langchain/core/tracers/tracer_langchain';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { Client } from 'langsmith';
import { traceable } from 'langsmith/traceable';
import { installLightRunContext } from './run-context.ts';

const State = Annotation.Root({ log: Annotation<string[]>({ reducer: (a, b) => [...a, ...b], default: () => [] }) });

/** The id of the run context a node runs in. */
const contextId = () => (AsyncLocalStorageProviderSingleton.getInstance().getStore() as { id?: string }).id;

/** What a node sees of its context: its config, a context variable through a nested
 * runnable, a traceable helper's answer, and whether each node call got a RunTree of its
 * own (ids differ) or a light context (no id of its own: the ids are the same). */
function buildGraph() {
  const inner = RunnableLambda.from(async () => ({ who: getContextVariable<string>('who'), thread: getConfig().configurable?.thread_id as string }));
  const helper = traceable(async (x: string) => `helped ${x}`, { name: 'helper' });
  return new StateGraph(State)
    .addNode('first', async (_s, config) => {
      const id = contextId();
      setContextVariable('who', 'first');
      const seen = await inner.invoke({});
      return {
        log: [
          `config:${config.configurable?.thread_id}`,
          `getConfig:${getConfig().configurable?.thread_id}`,
          `nested:${seen.who}/${seen.thread}`,
          await helper('x'),
          id ?? 'none',
        ],
      };
    })
    .addNode('second', async (s) => ({
      log: [`second:${getConfig().configurable?.thread_id}`, `var:${getContextVariable('who') ?? 'unset'}`, s.log[4] === contextId() ? 'light' : 'runtree'],
    }))
    .addEdge(START, 'first')
    .addEdge('first', 'second')
    .addEdge('second', END)
    .compile();
}

let uninstall: (() => void) | undefined;
afterEach(() => {
  uninstall?.();
  uninstall = undefined;
});

describe('installLightRunContext', () => {
  it('keeps getConfig, context variables and traceable helpers inside nodes, without a RunTree per call', async () => {
    const graph = buildGraph();
    const before = await graph.invoke({ log: [] }, { configurable: { thread_id: 't-1' } });
    uninstall = installLightRunContext();
    const after = await graph.invoke({ log: [] }, { configurable: { thread_id: 't-1' } });
    const expected = ['config:t-1', 'getConfig:t-1', 'nested:first/t-1', 'helped x'];
    expect(before.log.slice(0, 4)).toEqual(expected);
    expect(after.log.slice(0, 4)).toEqual(expected);
    // A variable set in one node is not seen by the next, with or without (LangChain's scoping).
    expect(before.log.slice(5, 7)).toEqual(['second:t-1', 'var:unset']);
    expect(after.log.slice(5, 7)).toEqual(['second:t-1', 'var:unset']);
    // LangChain's own function builds a RunTree for each node's call; the light one does not.
    expect(before.log[7]).toBe('runtree');
    expect(after.log[7]).toBe('light');
  });

  it("does not hand the first caller's context variables, or its metadata object, to later calls", async () => {
    uninstall = installLightRunContext();
    const storage = AsyncLocalStorageProviderSingleton.getInstance();
    const graph = new StateGraph(State)
      .addNode('read', async () => {
        const store = storage.getStore() as { extra: { metadata?: Record<string, unknown> } };
        store.extra.metadata!.touched = true; // code may write into its run's metadata
        return { log: [`tenant:${getContextVariable('tenant') ?? 'none'}`] };
      })
      .addEdge(START, 'read')
      .compile();
    // The first call of the process runs where a context variable is set.
    const first = await storage.run({}, async () => {
      setContextVariable('tenant', 'A');
      return graph.invoke({ log: [] }, { configurable: { thread_id: 't-5' } });
    });
    expect(first.log).toEqual(['tenant:A']);
    const later = await storage.run(undefined, () => graph.invoke({ log: [] }, { configurable: { thread_id: 't-6' } }));
    expect(later.log).toEqual(['tenant:none']);
    // Each call had a metadata object of its own: the write above did not reach this one.
    const meta = await storage.run(undefined, () =>
      RunnableLambda.from(async () => ({ ...(storage.getStore() as { extra: { metadata: object } }).extra.metadata })).invoke({}),
    );
    expect(meta).toEqual({});
  });

  it("restores LangChain's function when uninstalled", async () => {
    const original = AsyncLocalStorageProviderSingleton.runWithConfig;
    installLightRunContext()();
    expect(AsyncLocalStorageProviderSingleton.runWithConfig).toBe(original);
    const out = await buildGraph().invoke({ log: [] }, { configurable: { thread_id: 't-2' } });
    expect(out.log[7]).toBe('runtree');
  });

  it('fails a node the same way: the error reaches the caller with its message', async () => {
    uninstall = installLightRunContext();
    const graph = new StateGraph(State)
      .addNode('boom', async () => {
        throw new Error(`boom on ${getConfig().configurable?.thread_id}`);
      })
      .addEdge(START, 'boom')
      .compile();
    await expect(graph.invoke({ log: [] }, { configurable: { thread_id: 't-3' } })).rejects.toThrow('boom on t-3');
  });
});

describe('with a LangSmith tracer', () => {
  // A local server speaking LangSmith's run endpoints (POST /runs, PATCH /runs/{id}).
  const posted: Array<{ id: string; name: string; parent_run_id?: string; trace_id: string }> = [];
  let server: http.Server;
  let url = '';
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        if (req.method === 'POST' && req.url === '/runs') posted.push(JSON.parse(body));
        res.writeHead(req.url === '/info' ? 404 : 200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function traced(threadId: string) {
    posted.length = 0;
    const client = new Client({ apiUrl: url, apiKey: 'test-key', autoBatchTracing: false });
    const tracer = new LangChainTracer({ client, projectName: 'run-context-test' });
    const out = await buildGraph().invoke({ log: [] }, { configurable: { thread_id: threadId }, callbacks: [tracer] });
    await awaitAllCallbacks();
    await client.awaitPendingTraceBatches();
    // Names and the tree's shape (each run's parent's name), independent of ids.
    const byId = new Map(posted.map((r) => [r.id, r]));
    const tree = posted.map((r) => `${r.parent_run_id ? byId.get(r.parent_run_id)?.name : '(root)'} > ${r.name}`).sort();
    return { out, tree, traces: new Set(posted.map((r) => r.trace_id)).size };
  }

  it("posts the same runs, in the same tree, as LangChain's own function", async () => {
    const stock = await traced('t-4');
    uninstall = installLightRunContext();
    const light = await traced('t-4');
    expect(stock.tree.length).toBeGreaterThan(3);
    expect(stock.tree).toContain('LangGraph > first');
    expect(stock.tree).toContain('first > helper');
    expect(light.tree).toEqual(stock.tree);
    expect(light.traces).toBe(1);
    // With a tracer, nodes run in LangChain's RunTree context, as before.
    expect(light.out.log[7]).toBe('runtree');
    expect(light.out.log.slice(0, 4)).toEqual(stock.out.log.slice(0, 4));
  });

  it('posts the runs of a tracer a node adds through a configure hook, as LangChain does', async () => {
    // Inside a node (a context that does not trace), a configure hook's tracer still traces
    // the calls made after it (D-115).
    async function hooked() {
      posted.length = 0;
      const client = new Client({ apiUrl: url, apiKey: 'test-key', autoBatchTracing: false });
      const tracer = new LangChainTracer({ client, projectName: 'run-context-hook' });
      const helper = traceable(async () => 'inner', { name: 'hooked-helper' });
      const inner = RunnableLambda.from(() => helper()).withConfig({ runName: 'inner' });
      const graph = new StateGraph(State)
        .addNode('hooking', async () => {
          registerConfigureHook({ contextVar: 'hook_tracer' });
          setContextVariable('hook_tracer', tracer);
          return { log: [await inner.invoke({})] };
        })
        .addEdge(START, 'hooking')
        .addEdge('hooking', END)
        .compile();
      const out = await graph.invoke({ log: [] }, { configurable: { thread_id: 't-5' } });
      await awaitAllCallbacks();
      await client.awaitPendingTraceBatches();
      const byId = new Map(posted.map((r) => [r.id, r]));
      return { out, names: posted.map((r) => `${r.parent_run_id ? byId.get(r.parent_run_id)?.name : '(root)'} > ${r.name}`).sort() };
    }
    const stock = await hooked();
    uninstall = installLightRunContext();
    const light = await hooked();
    expect(stock.names).toEqual(expect.arrayContaining(['(root) > inner', 'inner > hooked-helper']));
    expect(light.names).toEqual(stock.names);
    expect(light.out.log).toEqual(['inner']);
  });

  it("follows LangSmith's tracing switch as LangChain does, read at each call", async () => {
    uninstall = installLightRunContext();
    const env = {
      LANGSMITH_TRACING: process.env.LANGSMITH_TRACING,
      LANGSMITH_ENDPOINT: process.env.LANGSMITH_ENDPOINT,
      LANGSMITH_API_KEY: process.env.LANGSMITH_API_KEY,
    };
    try {
      Object.assign(process.env, { LANGSMITH_TRACING: 'true', LANGSMITH_ENDPOINT: url, LANGSMITH_API_KEY: 'test-key' });
      posted.length = 0;
      const on = await buildGraph().invoke({ log: [] }, { configurable: { thread_id: 't-6' } });
      expect(on.log[7]).toBe('runtree'); // traced: LangChain's own RunTree context
      process.env.LANGSMITH_TRACING = 'false';
      const off = await buildGraph().invoke({ log: [] }, { configurable: { thread_id: 't-6' } });
      expect(off.log[7]).toBe('light');
    } finally {
      for (const [k, v] of Object.entries(env))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
  });
});
