// Opening a large state in the debugger (docs/performance.md, "A large state"): the headless
// studio on the example, one turn whose message is `mb`/2 MB of text (the request and the
// conversation each hold it: a state of about `mb` MB), then p50 of `samples` reads, request
// to full reply: the detail of the turn's last checkpoint (every channel, the parent's values
// for the step's diff), the run's checkpoint list, and a page of 50. `store` is the runtime
// child's checkpoint store: `sqlite` (its file) or `postgres` (POSTGRES_DSN, default the local
// test database; a schema of its own, dropped after).
// Usage: node bin/run-ts.mjs bench/large-state.bench.ts [mb=5] [samples=10] [store=sqlite]
import os from 'node:os';
import pg from 'pg';

import { p50Of, startBenchStudio } from './studio-thread.ts';

const [mbArg = '5', samplesArg = '10', store = 'sqlite'] = process.argv.slice(2);
const [mb, samples] = [Number(mbArg), Number(samplesArg)];
const schema = `bench_large_${process.pid}`;
if (store === 'postgres') {
  process.env.POSTGRES_DSN ??= 'postgresql://postgres@127.0.0.1:5432/test';
  process.env.POSTGRES_SCHEMA = schema;
}
const bench = await startBenchStudio('large-state');
const { studio, json } = bench;

try {
  const text = `Where is my order ORD-12345? ${'The parcel was meant to arrive last week. '.repeat(Math.ceil((mb * 1024 * 1024) / 2 / 42))}`;
  const session = (await json('POST', '/sessions', { title: 'large' })).session_id as string;
  const run = (await json('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text }] })).run_id as string;
  await bench.ended(run);
  const steps = (await json('GET', `/runs/${run}/checkpoints`)).items as { checkpoint_id: string }[];
  const last = await json('GET', `/sessions/${session}/checkpoints/${steps.at(-1)!.checkpoint_id}`);
  const bytes = Object.values(last.sizes as Record<string, number>).reduce((a, b) => a + b, 0);

  const time = (fn: () => Promise<unknown>): Promise<number> => p50Of(fn, samples);
  const rows: [string, number][] = [
    ['Playground detail of the last checkpoint', await time(() => json('GET', `/sessions/${session}/checkpoints/${steps.at(-1)!.checkpoint_id}`))],
    [`Playground list of the run's ${steps.length} checkpoints`, await time(() => json('GET', `/runs/${run}/checkpoints`))],
    ['Playground page of 50 (newest)', await time(() => json('GET', `/sessions/${session}/checkpoints?limit=50`))],
  ];
  console.log(`large state on ${store}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}; state ${(bytes / 1024 / 1024).toFixed(1)} MB`);
  console.log('| read | p50 |\n|---|---|');
  for (const [label, ms] of rows) console.log(`| ${label} | ${ms.toFixed(0)} ms |`);
} finally {
  await studio.close();
  if (store === 'postgres') {
    const client = new pg.Client({ connectionString: process.env.POSTGRES_DSN });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
