// Node spans (spans.ts, node-spans.ts, docs/runtime-traces.md) on a real compiled graph with
// LangGraph's in-memory saver, the turn's hook in the run's configurable: a span per node in
// step order with the nodes' trace events and branches between its start and end, a
// subgraph's nodes as its children, a Send task as a branch `node[index]`, a failure with its
// source position, an interrupt with what it asked, and each node's latency.
import { describe, expect, it } from 'vitest';
import { Annotation, END, interrupt, MemorySaver, Send, START, StateGraph } from '@langchain/langgraph';
import { instrumentNodes } from '../project/node-failures.ts';
import { emitTrace } from '../../../sdk/state.ts';
import { fanOut } from '../../../sdk/fanout.ts';
import { currentBranch } from '../../../sdk/branch-context.ts';
import { TRACE_HOOK_KEY } from '../../../sdk/trace-hook.ts';
import { instrumentSpans } from './node-spans.ts';
import { SpanTracker } from './spans.ts';

const State = Annotation.Root({
  words: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }),
  scored: Annotation<string[]>({ reducer: (p, n) => [...p, ...n], default: () => [] }),
});
type S = typeof State.State;

function graph(mode: string) {
  const inner = new StateGraph(State)
    .addNode('lookup', async () => ({ words: ['a', 'b'] }))
    .addEdge(START, 'lookup')
    .addEdge('lookup', END)
    .compile();
  const builder = new StateGraph(State)
    .addNode('plan', async (_s: S, config) => {
      emitTrace(config, 'routing', { why: 'test' });
      if (mode === 'throw') throw new RangeError('plan cannot plan');
      if (mode === 'ask') interrupt({ question: 'which?' });
      await fanOut(['x', 'y'], async (w) => w, { label: (w) => w });
      return { words: ['p'] };
    })
    .addNode('inner', inner)
    .addNode('score', async (arg: { word: string }) => ({ scored: [`${arg.word}!`] }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'inner')
    .addConditionalEdges('inner', (s: S) => s.words.map((word) => new Send('score', { word })), ['score'])
    .addEdge('score', END);
  instrumentNodes(builder);
  const g = builder.compile({ checkpointer: new MemorySaver() });
  instrumentSpans(g);
  return g;
}

async function run(mode: string) {
  const events: Record<string, any>[] = [];
  const latency: Record<string, number> = {};
  const spans = new SpanTracker((name, fields) => events.push({ name, ...fields }), '/nowhere', { latency });
  const g = graph(mode);
  let error: unknown;
  try {
    await g.invoke({}, { configurable: { thread_id: `t-${mode}`, [TRACE_HOOK_KEY]: spans } });
  } catch (err) {
    error = err;
    spans.failWith(err);
  }
  return { events, latency, error, state: await g.getState({ configurable: { thread_id: `t-${mode}` } }) };
}

const line = (e: Record<string, any>) => `${e.name} ${e.node ?? ''}`.trim();

describe('node spans from the node wrappers', () => {
  it('a span per node in step order; trace events and branches inside it; a subgraph’s nodes under it; Sends as branches', async () => {
    const { events, latency } = await run('ok');
    expect(events.slice(0, 9).map(line)).toEqual([
      'span.start plan',
      'routing',
      'span.start plan[x]',
      'span.start plan[y]',
      'span.end plan[x]',
      'span.end plan[y]',
      'span.end plan',
      'span.start inner',
      'span.start lookup',
    ]);
    const starts = events.filter((e) => e.name === 'span.start');
    const ends = events.filter((e) => e.name === 'span.end');
    expect(ends).toHaveLength(starts.length);
    expect(ends.every((e) => e.status === 'completed')).toBe(true);
    const byNode = (n: string) => starts.find((e) => e.node === n)!;
    expect(byNode('plan[x]')).toMatchObject({ kind: 'branch', parent_span_id: byNode('plan').span_id });
    expect(byNode('lookup')).toMatchObject({ kind: 'node', step: 1, parent_span_id: byNode('inner').span_id });
    expect(starts.filter((e) => !e.parent_span_id).map((e) => [e.node, e.kind, e.step])).toEqual([
      ['plan', 'node', 1],
      ['inner', 'node', 2],
      ['score[0]', 'branch', 3],
      ['score[1]', 'branch', 3],
    ]);
    expect(ends.find((e) => e.node === 'plan')!.update).toEqual({ words: ['p'] });
    expect(Object.keys(latency).sort()).toEqual(['inner', 'plan', 'score']);
  });

  it('a node that throws ends failed with its error; the run’s other spans close', async () => {
    const { events, error } = await run('throw');
    expect(error).toBeInstanceOf(RangeError);
    expect(events.map(line)).toEqual(['span.start plan', 'routing', 'span.end plan']);
    expect(events.at(-1)).toMatchObject({ status: 'failed', error: { message: 'RangeError: plan cannot plan', errorCode: 'INTERNAL_ERROR' } });
  });

  it('an interrupt ends the node interrupted, with what it asked', async () => {
    const { events, state } = await run('ask');
    expect(state.next).toEqual(['plan']);
    expect(events.at(-1)).toMatchObject({ name: 'span.end', node: 'plan', status: 'interrupted', interrupts: [{ question: 'which?' }] });
  });

  it('describes nothing when nobody receives spans, and still times the nodes', async () => {
    const events: unknown[] = [];
    const latency: Record<string, number> = {};
    const spans = new SpanTracker((name, fields) => events.push({ name, ...fields }), '/nowhere', { enabled: false, latency });
    await graph('ok').invoke({}, { configurable: { thread_id: 'quiet', [TRACE_HOOK_KEY]: spans } });
    expect(events).toEqual([{ name: 'routing', why: 'test' }]);
    expect(Object.keys(latency).sort()).toEqual(['inner', 'plan', 'score']);
  });

  it('runs fan-out branches in their branch context only when something keeps branches', async () => {
    // The model calls of a branch are counted under it (`model.call`'s branch_span_id) when
    // model calls are kept, spans or not; with nothing keeping branches, none is entered (D-114).
    const seen = async (branches: boolean) => {
      const g = new StateGraph(State)
        .addNode('fan', async () => ({ words: await fanOut(['x', 'y'], async (w) => `${w}:${currentBranch()?.node ?? 'none'}`, { label: (w) => w }) }))
        .addEdge(START, 'fan')
        .addEdge('fan', END)
        .compile();
      instrumentSpans(g);
      const spans = new SpanTracker(() => {}, '/nowhere', { enabled: false, branches });
      return (await g.invoke({}, { configurable: { thread_id: `branches-${branches}`, [TRACE_HOOK_KEY]: spans } })).words;
    };
    expect(await seen(true)).toEqual(['x:fan[x]', 'y:fan[y]']);
    expect(await seen(false)).toEqual(['x:none', 'y:none']);
  });
});
