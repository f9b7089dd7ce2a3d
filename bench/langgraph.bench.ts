// LangGraph's own cost per invocation on this machine, with nothing around it: no HTTP, no
// A2A, no store (the in-memory saver), trivial async nodes in a chain. It backs the
// "why the throughput target is out of reach" section of docs/performance.md.
// Usage: node bin/run-ts.mjs bench/langgraph.bench.ts
import { Annotation, END, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { HumanMessage } from '@langchain/core/messages';
import { cpuMsPerCall } from './cpu.ts';

const State = Annotation.Root({ ...MessagesAnnotation.spec, step: Annotation<number>({ reducer: (_a, b) => b, default: () => 0 }) });
type StreamMode = 'updates' | 'messages' | 'custom';

function chain(nodes: number) {
  // The builder's node names are typed literals; a loop builds them dynamically.
  let g = new StateGraph(State) as any;
  for (let i = 0; i < nodes; i++) g = g.addNode(`n${i}`, async () => ({ step: i }));
  g = g.addEdge(START, 'n0');
  for (let i = 1; i < nodes; i++) g = g.addEdge(`n${i - 1}`, `n${i}`);
  return g.addEdge(`n${nodes - 1}`, END).compile({ checkpointer: new MemorySaver() });
}

async function cpuPerInvocation(nodes: number, modes: StreamMode[]): Promise<number> {
  const app = chain(nodes);
  const once = async (i: number) => {
    const stream = await app.stream({ messages: [new HumanMessage('hi')] }, { configurable: { thread_id: `t${i}` }, streamMode: modes, durability: 'exit' });
    for await (const item of stream) void item;
  };
  return cpuMsPerCall(once, 2000);
}

console.log(`node ${process.version}; CPU per invocation of a chain of trivial nodes (in-memory saver, durability exit)`);
for (const nodes of [1, 2, 4]) {
  for (const modes of [
    ['updates', 'custom'],
    ['updates', 'messages', 'custom'],
  ] as StreamMode[][]) {
    const ms = await cpuPerInvocation(nodes, modes);
    console.log(`${nodes} node(s), ${modes.join('+').padEnd(23)}: ${ms.toFixed(2)} ms`);
  }
}
