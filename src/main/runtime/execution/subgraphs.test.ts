// Breakpoints inside subgraphs on a real compiled LangGraph graph (MemorySaver): a run with a
// breakpoint on `inner:rank` stops inside the subgraph and a null-input continue resumes it
// there; a run on the same graph without one is not touched; the subgraph's path comes from its
// checkpoint namespace.
import { Annotation, END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import type { Generation } from '../project/registry.ts';
import { debugConfigurable, gatePause, pausePoint } from './breakpoints.ts';
import { continueInput } from './continue.ts';
import { fanOut } from '../../../sdk/fanout.ts';
import { pathOfNamespace, subgraphNodeIds } from './subgraphs.ts';

function build(ran: string[]) {
  const State = Annotation.Root({ found: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }), score: Annotation<number>() });
  const inner = new StateGraph(State)
    .addNode('lookup', async () => (ran.push('lookup'), { found: ['a', 'b'] }))
    .addNode('rank', async (s) => (ran.push('rank'), { score: s.found.length }))
    .addEdge(START, 'lookup')
    .addEdge('lookup', 'rank')
    .addEdge('rank', END)
    .compile();
  return new StateGraph(State)
    .addNode('prepare', async () => (ran.push('prepare'), { found: ['x'] }))
    .addNode('inner', inner)
    .addEdge(START, 'prepare')
    .addEdge('prepare', 'inner')
    .addEdge('inner', END)
    .compile({ checkpointer: new MemorySaver() });
}

describe('breakpoints inside subgraphs', () => {
  it('names a subgraph’s nodes and reads its path from a namespace', () => {
    expect(subgraphNodeIds(build([]))).toEqual(['inner:lookup', 'inner:rank']);
    expect(pathOfNamespace('inner:1f0e|deeper:2a1b')).toBe('inner:deeper');
    expect(pathOfNamespace('')).toBe('');
  });

  it('pauses before inner:rank for the run that asks, and continues there; another run on the graph is not paused', async () => {
    const ran: string[] = [];
    const graph = build(ran);
    const gen = { graph, number: 1 } as unknown as Generation;
    const debug = { breakpoints: [{ node: 'inner:rank', when: 'before' as const }], step: false, continue: false };
    const config = (thread: string, d: typeof debug | null) => ({ configurable: { thread_id: thread, ...debugConfigurable(d, gen) } });

    await graph.invoke({ found: [] }, config('paused', debug));
    expect(ran).toEqual(['prepare', 'lookup']);
    const at = await pausePoint(gen, 'paused', debug, 'inner:lookup');
    expect(at).toMatchObject({ node: 'inner:rank', when: 'before', generation: 1 });
    expect(at?.checkpoint_ns).toMatch(/^inner:/);
    const inside = await graph.getState({ configurable: { thread_id: 'paused', checkpoint_ns: at!.checkpoint_ns, checkpoint_id: at!.checkpoint_id } });
    expect(inside.next).toEqual(['rank']);

    ran.length = 0;
    expect(await graph.invoke({ found: [] }, config('plain', null))).toEqual({ found: ['a', 'b'], score: 2 });
    expect(ran).toEqual(['prepare', 'lookup', 'rank']);

    ran.length = 0;
    expect(await graph.invoke(null, config('paused', debug))).toEqual({ found: ['a', 'b'], score: 2 });
    expect(ran).toEqual(['rank']);
  });

  it('pauses after inner:lookup with the subgraph’s checkpoint, and continues with rank only', async () => {
    const ran: string[] = [];
    const graph = build(ran);
    const gen = { graph, number: 1 } as unknown as Generation;
    const debug = { breakpoints: [{ node: 'inner:lookup', when: 'after' as const }], step: false, continue: false };
    const config = { configurable: { thread_id: 'after', ...debugConfigurable(debug, gen) } };
    await graph.invoke({ found: [] }, config);
    expect(ran).toEqual(['prepare', 'lookup']);
    const at = await pausePoint(gen, 'after', debug, 'inner:lookup');
    expect(at).toMatchObject({ node: 'inner:lookup', when: 'after' });
    const inside = await graph.getState({ configurable: { thread_id: 'after', checkpoint_ns: at!.checkpoint_ns, checkpoint_id: at!.checkpoint_id } });
    expect(inside.values.found).toEqual(['a', 'b']);
    ran.length = 0;
    expect(await graph.invoke(null, config)).toEqual({ found: ['a', 'b'], score: 2 });
    expect(ran).toEqual(['rank']);
  });

  it('pauses after inner:rank, the subgraph’s last node, with the subgraph’s checkpoint; Continue runs nothing again', async () => {
    const ran: string[] = [];
    const graph = build(ran);
    const gen = { graph, number: 1 } as unknown as Generation;
    const debug = { breakpoints: [{ node: 'inner:rank', when: 'after' as const }], step: false, continue: false };
    const config = { configurable: { thread_id: 'last', ...debugConfigurable(debug, gen) } };
    await graph.invoke({ found: [] }, config);
    const at = await pausePoint(gen, 'last', debug, 'inner:rank');
    expect(at).toMatchObject({ node: 'inner:rank', when: 'after' });
    expect(at?.checkpoint_ns).toMatch(/^inner:/);
    const inside = await graph.getState({ configurable: { thread_id: 'last', checkpoint_ns: at!.checkpoint_ns, checkpoint_id: at!.checkpoint_id } });
    expect(inside.values.score).toBe(2);
    ran.length = 0;
    expect(await graph.invoke(null, config)).toEqual({ found: ['a', 'b'], score: 2 });
    expect(ran).toEqual([]);
  });

  it('gates a branch of a subgraph’s node as inner:x[b], before and after, and continues without running the branches again', async () => {
    const ran: string[] = [];
    const State = Annotation.Root({ found: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }) });
    const inner = new StateGraph(State)
      .addNode('x', async () => ({ found: await fanOut(['a', 'b'], async (i) => (ran.push(i), `${i}1`), { label: (i) => i }) }))
      .addEdge(START, 'x')
      .addEdge('x', END)
      .compile();
    const graph = new StateGraph(State).addNode('inner', inner).addEdge(START, 'inner').addEdge('inner', END).compile({ checkpointer: new MemorySaver() });
    const gen = { graph, number: 1 } as unknown as Generation;
    const debug = {
      breakpoints: [
        { node: 'inner:x[b]', when: 'before' as const },
        { node: 'inner:x[a]', when: 'after' as const },
      ],
      step: false,
      continue: false,
    };
    const config = { configurable: { thread_id: 'branch', ...debugConfigurable(debug, gen) } };
    const pauses: unknown[] = [];
    let out = (await graph.invoke({ found: [] }, config)) as { __interrupt__?: { value?: unknown }[] };
    while (out.__interrupt__?.length) {
      const at = await gatePause(gen, 'branch', out.__interrupt__[0]!);
      pauses.push(at && { node: at.node, when: at.when, inside: at.checkpoint_ns?.startsWith('inner:') });
      const { input } = await continueInput(gen, 'branch', at ?? undefined, () => {});
      out = (await graph.invoke(input as Parameters<typeof graph.invoke>[0], config)) as typeof out;
    }
    expect(pauses).toEqual([
      { node: 'inner:x[b]', when: 'before', inside: true },
      { node: 'inner:x[a]', when: 'after', inside: true },
    ]);
    expect(out).toEqual({ found: ['a1', 'b1'] });
    expect(ran).toEqual(['a', 'b']);
  });
});
