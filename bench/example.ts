// Shared by the runtime benchmarks: the example graph built the way the runtime builds it
// (for the graph-alone floor and the hand-wired peer), its CPU per invocation in-process,
// and turn latency at the start and the end of long threads.
import path from 'node:path';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { loadSettings } from '../src/main/runtime/config.ts';
import { Registry, type MemoryConfig } from '../src/main/runtime/project/registry.ts';
import { cpuMsPerCall } from './cpu.ts';
import { REPO, pct, send } from './load.ts';

export const EXAMPLE_TEXT = 'How do I reset my password?';

/** The example's graph, compiled with `checkpointer`, from the example's own factory. */
export async function exampleGraph(checkpointer: BaseCheckpointSaver) {
  const projectDir = path.join(REPO, 'examples/support-desk');
  const settings = loadSettings(projectDir, { ...process.env, SCRIPTED_DELAY_MS: process.env.SCRIPTED_DELAY_MS ?? '0' });
  const memory: MemoryConfig = { enabled: true, backend: 'sqlite', summarize: false, window_size: 20, summarize_threshold: 40 };
  const registry = new Registry({ projectDir, settings, memory, checkpointer: () => checkpointer, initMemory: () => {}, mcpTools: async () => [] });
  return (await registry.build()).graph;
}

/** CPU of one invocation of the example's graph alone (in this process, no HTTP, no store,
 * an in-memory checkpointer, the stream modes message/send uses): what LangGraph costs. */
export async function graphAloneCpuMs(): Promise<number> {
  const graph = await exampleGraph(new MemorySaver());
  return cpuMsPerCall(async (i: number) => {
    const input = {
      messages: [new HumanMessage(EXAMPLE_TEXT)],
      request: { text: EXAMPLE_TEXT, data: [], files: [], metadata: {}, contextId: `c${i}`, taskId: `t${i}` },
      response: null,
    };
    const stream = await graph.stream(input, { configurable: { thread_id: `floor-${i}` }, streamMode: ['updates', 'custom'], durability: 'exit' });
    for await (const item of stream) void item;
  }, 1500);
}

/** p50 latency of turns 1-5 of fresh threads against turns (turns-4)..turns of long threads.
 * `threads` long threads are first grown to turns-5 turns (untimed, after `warmup` untimed
 * turns on a thread of their own); then the timed turns alternate, a fresh thread's turn and
 * a long thread's turn, so that whatever else the machine does slows both ends alike. */
export async function turnLatency(url: string, turns: number, threads: number, warmup = 0): Promise<{ turn1: number; turnN: number; samples: number }> {
  const text = (i: number) => (i % 2 ? EXAMPLE_TEXT : 'Where is my order ORD-23456?');
  let warm: string | undefined;
  for (let i = 0; i < warmup; i++) warm = (await send(url, EXAMPLE_TEXT, warm)).contextId;
  const long: string[] = [];
  for (let t = 0; t < threads; t++) {
    let contextId: string | undefined;
    for (let i = 1; i <= turns - 5; i++) contextId = (await send(url, text(i), contextId)).contextId;
    long.push(contextId!);
  }
  const fresh: (string | undefined)[] = Array.from({ length: threads }, () => undefined);
  const first: number[] = [];
  const last: number[] = [];
  const timed = async (contextId: string | undefined, i: number, into: number[]) => {
    const t0 = performance.now();
    const result = await send(url, text(i), contextId);
    into.push(performance.now() - t0);
    return result.contextId as string;
  };
  for (let k = 1; k <= 5; k++) {
    for (let t = 0; t < threads; t++) {
      fresh[t] = await timed(fresh[t], k, first);
      long[t] = await timed(long[t], turns - 5 + k, last);
    }
  }
  first.sort((a, b) => a - b);
  last.sort((a, b) => a - b);
  return { turn1: pct(first, 50), turnN: pct(last, 50), samples: first.length };
}
