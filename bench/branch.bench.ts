// Branching a long conversation (docs/performance.md, "Branch a conversation"): the headless
// studio on the example, one session of `turns` turns, then `samples` branches of its last
// turn with an edited message, one after another (one active run per project): POST
// /runs/{id}/branch to its 202 (the turn's checkpoints read, the runtime's copy of the state at
// the start of the turn and of the conversation before it, the session and the run), to the
// run's end, and the branch's transcript (the shared turns and its own) read. p50 of each.
// Usage: node bin/run-ts.mjs bench/branch.bench.ts [turns=200] [samples=20]
import os from 'node:os';
import { pct } from './load.ts';
import { longThread, startBenchStudio } from './studio-thread.ts';

const [turns = 200, samples = 20] = process.argv.slice(2).map(Number);
const bench = await startBenchStudio('branch');
const { studio, json, ended } = bench;

try {
  const { runs, seconds: building } = await longThread(bench, turns);
  const last = runs.at(-1)!;
  const accepted: number[] = [];
  const done: number[] = [];
  const read: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    const s = performance.now();
    const { run_id, session_id } = await json('POST', `/runs/${last}/branch`, { parts: [{ kind: 'text', text: 'Where is my order ORD-23456?' }] });
    const a = performance.now() - s;
    await ended(run_id);
    const d = performance.now() - s;
    const r = performance.now();
    const page = await json('GET', `/sessions/${session_id}/transcript?limit=200`);
    if (page.items.length !== Math.min(turns, 200)) throw new Error(`the branch's transcript has ${page.items.length} turns`);
    const t = performance.now() - r;
    if (i < 3) continue; // warm-up
    accepted.push(a);
    done.push(d);
    read.push(t);
  }
  const p50 = (ms: number[]) =>
    pct(
      ms.sort((x, y) => x - y),
      50,
    ).toFixed(1);
  console.log(`branch, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}; ${turns} turns built in ${building} s`);
  console.log('| branch of the last turn (edited message) | p50 |');
  console.log('|---|---|');
  console.log(`| request to 202 (checkpoints read, copy, conversation, session and run) | ${p50(accepted)} ms |`);
  console.log(`| request to the run's end | ${p50(done)} ms |`);
  console.log(`| the branch's transcript, first page of 200 turns | ${p50(read)} ms |`);
} finally {
  await studio.close();
}
