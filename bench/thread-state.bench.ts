// Opening the state at a checkpoint of a long thread (docs/performance.md, "The state at a
// step"): the headless studio on the example, one session of `turns` turns (the studio's
// child checkpoints every step), then, side by side in one run:
//   - the Playground's GET /sessions/{id}/checkpoints/{cid} (request to the full reply: the
//     runtime's read of the checkpoint and its parent, the step's diff);
//   - LangGraph's getState of the same checkpoint on the same SQLite file in this process,
//     no HTTP, no diff (the floor a hand-wired endpoint would start from);
// for the thread's newest checkpoint and for one of its first turn; and a run's checkpoint
// list (GET /runs/{id}/checkpoints) for the last and the first run. p50 of `samples` each.
// Usage: node bin/run-ts.mjs bench/thread-state.bench.ts [turns=200] [samples=30]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '../src/main/runtime/store/sqlite.ts';
import { exampleGraph } from './example.ts';

import { longThread, p50Of, startBenchStudio } from './studio-thread.ts';

const [turns = 200, samples = 30] = process.argv.slice(2).map(Number);
const bench = await startBenchStudio('thread-state');
const { studio, json, dataDir } = bench;

try {
  const { session, runs, seconds: building } = await longThread(bench, turns);
  const last = (await json('GET', `/runs/${runs.at(-1)}/checkpoints`)).items.at(-1);
  const first = (await json('GET', `/runs/${runs[0]}/checkpoints`)).items.find((c: { writes: object }) => 'router' in c.writes);
  const thread = (await json('GET', `/runs/${runs[0]}`)).context_id as string;
  const file = (fs.readdirSync(dataDir, { recursive: true }) as string[]).find((f) => f.endsWith('memory.sqlite'));
  if (!file) throw new Error(`no runtime memory.sqlite under ${dataDir}`);
  const store = openSqliteStore(path.join(dataDir, file));
  const graph = await exampleGraph(store.checkpointer('studio'));

  const time = (fn: () => Promise<unknown>): Promise<number> => p50Of(fn, samples, 3);
  const rows: [string, number][] = [];
  for (const [label, c] of [
    ['newest checkpoint', last],
    ['a checkpoint of the first turn', first],
  ] as const) {
    rows.push([`Playground detail, ${label}`, await time(() => json('GET', `/sessions/${session}/checkpoints/${c.checkpoint_id}`))]);
    const config = { configurable: { thread_id: thread, checkpoint_ns: '', checkpoint_id: c.checkpoint_id } };
    rows.push([`LangGraph getState in-process (floor), ${label}`, await time(() => graph.getState(config))]);
  }
  rows.push(['Playground list of the last run', await time(() => json('GET', `/runs/${runs.at(-1)}/checkpoints`))]);
  rows.push(['Playground list of the first run', await time(() => json('GET', `/runs/${runs[0]}/checkpoints`))]);
  rows.push(['Playground page of 50 (newest)', await time(() => json('GET', `/sessions/${session}/checkpoints?limit=50`))]);
  const count = (await json('GET', `/sessions/${session}/checkpoints?limit=200`)).items.length;
  console.log(
    `thread state, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}; ${turns} turns built in ${building} s; ≥${count} checkpoints`,
  );
  console.log('| read | p50 |');
  console.log('|---|---|');
  for (const [label, ms] of rows) console.log(`| ${label} | ${ms.toFixed(1)} ms |`);
} finally {
  await studio.close();
}
