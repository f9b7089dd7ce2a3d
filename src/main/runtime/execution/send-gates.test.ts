// Send tasks as fan-out branches (send-gates.ts, D-83) on a real compiled graph with LangGraph's
// in-memory saver: a task's span is named `node[index]`, a gated task pauses alone, a continue resumes
// exactly that task, and an after-gate keeps the task's update so it does not run again.
import { describe, expect, it } from 'vitest';
import { Annotation, Command, END, MemorySaver, Send, START, StateGraph } from '@langchain/langgraph';
import { instrumentNodes } from '../project/node-failures.ts';
import { BRANCH_GATES_KEY } from '../../../sdk/fanout.ts';
import { TRACE_HOOK_KEY } from '../../../sdk/trace-hook.ts';
import { instrumentSpans } from './node-spans.ts';
import { SpanTracker } from './spans.ts';
import { pendingSendGates, sendGateResume } from './send-gates.ts';

function graph(ran: string[]) {
  const State = Annotation.Root({
    words: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }),
    scored: Annotation<string[]>({ reducer: (p, n) => [...p, ...n], default: () => [] }),
  });
  const builder = new StateGraph(State)
    .addNode('plan', async () => ({ words: ['a', 'b', 'c'] }))
    .addNode('other', async (arg: { word: string }) => ({ scored: [`other ${arg.word}`] }))
    .addNode('score', async (arg: { word: string }) => {
      ran.push(arg.word);
      return { scored: [`${arg.word}!`] };
    })
    .addNode('collect', async () => ({}))
    .addEdge(START, 'plan')
    .addConditionalEdges('plan', (s) => [new Send('other', { word: 'x' }), ...s.words.map((word) => new Send('score', { word }))], ['score', 'other'])
    .addEdge('score', 'collect')
    .addEdge('collect', END);
  instrumentNodes(builder);
  const g = builder.compile({ checkpointer: new MemorySaver() });
  instrumentSpans(g);
  return g;
}

async function run(g: ReturnType<typeof graph>, input: Parameters<ReturnType<typeof graph>['stream']>[0], thread: string, gates: Record<string, unknown>) {
  // The branch names the Send tasks' spans carry (spans.ts).
  const labels: string[] = [];
  const spans = new SpanTracker((name, f) => void (name === 'span.start' && f.kind === 'branch' && labels.push(f.node as string)), '/nowhere');
  const stream = await g.stream(input, { configurable: { thread_id: thread, [BRANCH_GATES_KEY]: gates, [TRACE_HOOK_KEY]: spans }, streamMode: ['updates'] });
  for await (const item of stream) void item;
  return { labels, state: await g.getState({ configurable: { thread_id: thread } }), gates: await pendingSendGates(g, thread) };
}

const pausedAt = (at: { gates: { value: Record<string, unknown> }[] }) => at.gates.map((g) => (g.value.breakpoint as { node: string }).node);

describe('Send tasks as branches', () => {
  it('names each task by its place among its node’s Sends and pauses only the gated one', async () => {
    const ran: string[] = [];
    const g = graph(ran);
    const first = await run(g, {}, 't1', { nodes: ['score[1]'], after: [], step: false });
    expect(first.labels.sort()).toEqual(['other[0]', 'score[0]', 'score[1]', 'score[2]']);
    expect(pausedAt(first)).toEqual(['score[1]']);
    expect(ran.sort()).toEqual(['a', 'c']);
    // The others ran: their results are the step's pending writes (the state shows them); the
    // gated task's is not there.
    expect(first.state.values.scored).toEqual(['other x', 'a!', 'c!']);
    const done = await run(g, new Command({ resume: sendGateResume(first.gates[0]!) }), 't1', { nodes: ['score[1]'], after: [], step: false });
    expect(done.state.next).toEqual([]);
    expect(ran.sort()).toEqual(['a', 'b', 'c']);
    expect([...done.state.values.scored].sort()).toEqual(['a!', 'b!', 'c!', 'other x']);
  });

  it('in step mode stops the tasks one at a time, in order', async () => {
    const ran: string[] = [];
    const g = graph(ran);
    const step = { nodes: [], after: [], step: true };
    let at = await run(g, {}, 't2', step);
    const seen: string[] = [];
    for (let i = 0; i < 6 && at.gates.length; i += 1) {
      seen.push(pausedAt(at)[0]!);
      at = await run(g, new Command({ resume: sendGateResume(at.gates[0]!) }), 't2', step);
    }
    expect(seen).toEqual(['other[0]', 'score[0]', 'score[1]', 'score[2]']);
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(at.state.values.scored).toEqual(['other x', 'a!', 'b!', 'c!']);
  });

  it('after a task: pauses with its update kept; the continue writes it without running it again', async () => {
    const ran: string[] = [];
    const g = graph(ran);
    const gates = { nodes: [], after: ['score[2]'], step: false };
    const first = await run(g, {}, 't3', gates);
    expect(pausedAt(first)).toEqual(['score[2]']);
    expect(ran.sort()).toEqual(['a', 'b', 'c']);
    const done = await run(g, new Command({ resume: sendGateResume(first.gates[0]!) }), 't3', gates);
    expect(done.state.next).toEqual([]);
    expect(ran.sort()).toEqual(['a', 'b', 'c']);
    expect([...done.state.values.scored].sort()).toEqual(['a!', 'b!', 'c!', 'other x']);
  });
});
