// What recording costs in-process (D-93): the example graph invoked alternately with no call
// session (as a deployed runtime with RECORD_CALLS=off), with a session that only keys calls,
// and recording (messages kept, the model.call event serialized as a sink would), CPU per
// invocation in this process. Usage: SCRIPTED_DELAY_MS=0 node bin/run-ts.mjs bench/recording-inprocess.bench.ts
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { exampleGraph } from './example.ts';
import { cpuMsPerCall } from './cpu.ts';
import { openCallSession } from '../src/sdk/call-record.ts';
import { modelUsage } from '../src/sdk/usage.ts';
import { modelCallFields } from '../src/main/runtime/observability/trace-value.ts';

const graph = await exampleGraph(new MemorySaver());
const TEXT = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';
let sink = 0;
const once =
  (record: boolean, keyed = record) =>
  async (i: number) => {
    const thread = `${record ? 'on' : 'off'}-${i}`;
    const s = keyed ? openCallSession(thread, { record, replay: null, emit: (n, f) => (sink += JSON.stringify(f).length) }) : null;
    const unwatch = modelUsage().watch(thread, { content: record, onCall: (c) => (sink += JSON.stringify(modelCallFields(c)).length) });
    const input = {
      messages: [new HumanMessage(TEXT)],
      request: { text: TEXT, data: [], files: [], metadata: {}, contextId: thread, taskId: `t${i}` },
      response: null,
    };
    const stream = await graph.stream(input, { configurable: { thread_id: thread }, streamMode: ['updates', 'custom'], durability: 'exit' });
    for await (const item of stream) void item;
    unwatch();
    s?.close();
  };
const on: number[] = [],
  off: number[] = [],
  keyed: number[] = [];
for (let r = 0; r < (process.env.ONLY ? 1 : 6); r++) {
  off.push(await cpuMsPerCall(once(false), 400, 100));
  on.push(await cpuMsPerCall(once(true), 400, 100));
  keyed.push(await cpuMsPerCall(once(false, true), 400, 100));
}
const med = (x: number[]) => [...x].sort((a, b) => a - b)[3]!;
console.log(
  'keyed',
  keyed.map((x) => x.toFixed(3)).join(' '),
  (med(keyed) / med(off)).toFixed(3),
  'off',
  off.map((x) => x.toFixed(3)).join(' '),
  'on',
  on.map((x) => x.toFixed(3)).join(' '),
  'ratio',
  (med(on) / med(off)).toFixed(3),
  sink,
);
