// A turn ends in exactly one outcome, traced by exactly one `invoke.end` after `invoke.start`,
// and reports that outcome once to the binding (nothing at all when canceled). Runs real
// LangGraph graphs on an in-memory checkpointer.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { Annotation, END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import type { Generation, MemoryConfig } from '../project/registry.ts';
import type { TraceEvent } from '../observability/trace.ts';
import { newRuntimeStats } from '../observability/stats.ts';
import { runTurn, type Turn, type TurnDeps, type TurnEvents } from './turn.ts';
import { StoreUnavailableError } from '../store/unavailable.ts';

const State = Annotation.Root({ ...MessagesAnnotation.spec, request: Annotation<unknown>(), response: Annotation<unknown>() });
type Node = (state: typeof State.State, config: { signal?: AbortSignal }) => unknown;

function generation(node: Node): Generation {
  const saver = new MemorySaver();
  const graph = new StateGraph(State)
    .addNode('answer', async (state, config) => (await node(state, config)) as Record<string, unknown>)
    .addEdge(START, 'answer')
    .addEdge('answer', END)
    .compile({ checkpointer: saver });
  return {
    number: 1,
    exitNode: 'answer',
    graph,
    project: { dir: process.cwd(), manifest: { graph: { recursionLimit: 25 } }, contracts: new Map(), evaluators: [] },
    saver,
  } as unknown as Generation;
}

/** `transcript`: the store's appendTranscript (memory on when given). */
async function turn(node: Node, cancelAt?: (cancel: () => void) => void, transcript?: () => Promise<void>) {
  const gen = generation(node);
  const trace: TraceEvent[] = [];
  const reports: string[] = [];
  const controller = new AbortController();
  let canceled = false;
  cancelAt?.(() => {
    canceled = true;
    controller.abort(new Error('task canceled'));
  });
  const memory: MemoryConfig = { enabled: transcript !== undefined, backend: 'sqlite', summarize: false, window_size: 20, summarize_threshold: 40 };
  const stats = newRuntimeStats();
  const deps: TurnDeps = {
    settings: {
      agentId: 'agent-1',
      maxHistoryTokens: null,
      historyMaxMessages: 50,
      captureUrl: null,
      nodeSpans: false,
      stageTiming: false,
      checkpointDurability: 'exit',
      traceModelContent: false,
    },
    memory,
    store: { getMemory: async () => undefined, putMemory: async () => undefined, appendTranscript: transcript ?? (async () => undefined) },
    summarizer: async () => '',
    checkpointer: () => (gen as unknown as { saver: MemorySaver }).saver,
    sinks: [{ emit: (e) => void trace.push(e) }],
    log: pino({ level: 'silent' }),
    stats,
  };
  const t: Turn = {
    gen,
    taskId: 'task-1',
    contextId: 'ctx-1',
    messageId: 'm-1',
    partKinds: ['text'],
    request: { text: 'hello', data: [], files: [], metadata: {}, contextId: 'ctx-1', taskId: 'task-1' },
    history: undefined,
    labels: {},
    captureToken: null,
    configurable: {},
    streaming: false,
    signal: controller.signal,
    canceled: () => canceled,
  };
  const events: TurnEvents = {
    started: () => void reports.push('started'),
    token: () => void reports.push('token'),
    inputRequired: (question) => void reports.push(`input-required: ${question}`),
    completed: (response) => void reports.push(`completed: ${response.text}`),
    failed: (failure) => void reports.push(`failed: ${failure.code} ${failure.reason}`),
  };
  await runTurn(deps, t, events);
  const names = trace.map((e) => e.name).filter((n) => n.startsWith('invoke.'));
  const end = trace.find((e) => e.name === 'invoke.end') as (TraceEvent & { state?: string }) | undefined;
  return { names, state: end?.state, reports, stats };
}

describe('runTurn', () => {
  it('completes: one invoke.end, then the answer', async () => {
    const r = await turn(() => ({ response: { text: 'hi there' } }));
    expect(r.names).toEqual(['invoke.start', 'invoke.end']);
    expect(r.state).toBe('completed');
    expect(r.reports).toEqual(['started', 'completed: hi there']);
    expect([r.stats.invocations, r.stats.completed]).toEqual([1, 1]);
  });

  it('asks for input at an interrupt: one invoke.end, then the question', async () => {
    const r = await turn(() => interrupt({ question: 'Which order?' }));
    expect(r.names).toEqual(['invoke.start', 'invoke.end']);
    expect(r.state).toBe('input-required');
    expect(r.reports).toEqual(['started', 'input-required: Which order?']);
    expect(r.stats.input_required).toBe(1);
  });

  it('fails when a node throws, and when the exit node gives no answer: one invoke.end each', async () => {
    const thrown = await turn(() => {
      throw new Error('boom');
    });
    expect([thrown.names, thrown.state, thrown.reports]).toEqual([
      ['invoke.start', 'invoke.end'],
      'failed',
      ['started', 'failed: INTERNAL_ERROR unhandled_exception'],
    ]);
    const empty = await turn(() => ({}));
    expect([empty.names, empty.state, empty.reports]).toEqual([['invoke.start', 'invoke.end'], 'failed', ['started', 'failed: INTERNAL_ERROR empty_response']]);
    expect(empty.stats.failed).toBe(1);
  });

  it('fails store_unavailable when the store does not take its messages (D-50): never answered completed and missing from its thread', async () => {
    const r = await turn(
      () => ({ response: { text: 'hi there' } }),
      undefined,
      async () => {
        throw new StoreUnavailableError('connection failed (ECONNREFUSED)');
      },
    );
    expect([r.names, r.state, r.reports]).toEqual([['invoke.start', 'invoke.end'], 'failed', ['started', 'failed: UPSTREAM_UNAVAILABLE store_unavailable']]);
    expect([r.stats.completed, r.stats.failed]).toEqual([0, 1]);
    const kept = await turn(
      () => ({ response: { text: 'hi there' } }),
      undefined,
      async () => undefined,
    );
    expect(kept.reports).toEqual(['started', 'completed: hi there']);
  });

  it('is canceled: one invoke.end, and nothing reported after the start', async () => {
    let cancel: () => void = () => undefined;
    const r = await turn(
      (_state, config) =>
        new Promise((_resolve, reject) => {
          config.signal?.addEventListener('abort', () => reject(new Error('aborted')));
          cancel();
        }),
      (c) => (cancel = c),
    );
    expect(r.names).toEqual(['invoke.start', 'invoke.end']);
    expect(r.state).toBe('canceled');
    expect(r.reports).toEqual(['started']);
  });
});
