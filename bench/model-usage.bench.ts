// What awaiting the model-usage callback costs (D-94): the offline scripted model (6 streamed
// chunks) invoked in-process with createChatModel's usage handler as the runtime now runs it
// (awaited by LangChain) and as it ran before (queued in LangChain's background queue), in
// alternating batches, CPU per call from process.cpuUsage. A figure, not a timed test.
// Usage: node bin/run-ts.mjs bench/model-usage.bench.ts   (BENCH_CALLS, BENCH_ROUNDS)
import { HumanMessage } from '@langchain/core/messages';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { ScriptedChatModel } from '../src/sdk/scripted-model.ts';
import { modelUsage } from '../src/sdk/usage.ts';

const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const handler = modelUsage();
const model = new ScriptedChatModel(() => 'A short answer in a few chunks, like the example gives.', { chunks: 6, callbacks: [handler] });
const config = { metadata: { thread_id: 't1', langgraph_node: 'n', langgraph_checkpoint_ns: 'n:task' } };
handler.watch('t1', { content: false, onCall: () => {} });

async function batch(awaited: boolean): Promise<number> {
  handler.awaitHandlers = awaited;
  const before = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await model.invoke([new HumanMessage('hello')], config);
  await awaitAllCallbacks();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / CALLS;
}

await batch(true);
await batch(false);
const on: number[] = [];
const off: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  on.push(await batch(true));
  off.push(await batch(false));
  console.log(`round ${r + 1}: awaited ${on.at(-1)!.toFixed(4)} ms/call, queued ${off.at(-1)!.toFixed(4)} ms/call`);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`median: awaited ${median(on).toFixed(4)} ms/call, queued ${median(off).toFixed(4)} ms/call, ratio ${(median(on) / median(off)).toFixed(3)}`);
