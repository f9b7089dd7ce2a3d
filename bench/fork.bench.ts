// Forking from a checkpoint of a long thread (docs/performance.md, "Fork from a step"): the
// headless studio on the example, one session of `turns` turns, then `samples` forks of the
// last turn's checkpoint after `router` with `intents` edited, one after another (one active
// run per project): POST /runs/{id}/fork to its 202 (the runtime's copy of the checkpoint and
// of the conversation, the edit, the new session and run), to the new run being `running`
// (its A2A stream from the copy opens; polled every ms), and to the run's end. p50 of each.
// Usage: node bin/run-ts.mjs bench/fork.bench.ts [turns=200] [samples=20]
import os from 'node:os';
import { pct } from './load.ts';
import { longThread, startBenchStudio, TEXTS } from './studio-thread.ts';

const [turns = 200, samples = 20] = process.argv.slice(2).map(Number);
const bench = await startBenchStudio('fork');
const { studio, json, ended } = bench;

try {
  const { runs, seconds: building } = await longThread(bench, turns, TEXTS[1]);
  const last = runs.at(-1)!;
  const afterRouter = (await json('GET', `/runs/${last}/checkpoints`)).items.find((c: { writes: object }) => 'router' in c.writes);
  const accepted: number[] = [];
  const invoking: number[] = [];
  const done: number[] = [];
  for (let i = 0; i < samples + 3; i++) {
    const s = performance.now();
    const { run_id } = await json('POST', `/runs/${last}/fork`, { checkpoint_id: afterRouter.checkpoint_id, values: { intents: ['order_status'] } });
    const a = performance.now() - s;
    for (;;) {
      const run = await json('GET', `/runs/${run_id}`);
      if (run.status !== 'queued' && run.status !== 'preparing') break;
      await new Promise((r) => setTimeout(r, 1));
    }
    const b = performance.now() - s;
    await ended(run_id);
    if (i < 3) continue; // warm-up
    accepted.push(a);
    invoking.push(b);
    done.push(performance.now() - s);
  }
  const p50 = (ms: number[]) =>
    pct(
      ms.sort((x, y) => x - y),
      50,
    ).toFixed(1);
  console.log(`fork, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}; ${turns} turns built in ${building} s`);
  console.log('| fork of the last turn after router (intents edited) | p50 |');
  console.log('|---|---|');
  console.log(`| request to 202 (copy, conversation, edit, session and run) | ${p50(accepted)} ms |`);
  console.log(`| request to the run invoking (its A2A stream open) | ${p50(invoking)} ms |`);
  console.log(`| request to the run's end (skills and respond run) | ${p50(done)} ms |`);
} finally {
  await studio.close();
}
