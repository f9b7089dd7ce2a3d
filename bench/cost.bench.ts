// The runtime's cost per request, in one run, alternating rounds:
//  1. message/send throughput and CPU per request of the runtime against the hand-wired peer
//     (bench/peer-server.ts: @a2a-js/sdk + the same graph on LangGraph's SQLite saver with
//     durability "exit", WAL, synchronous=NORMAL), both serving the offline example; beside
//     them the runtime with LangChain's process-wide behaviour as shipped (RANDOM_POOL=off,
//     LIGHT_RUN_CONTEXT=off), to show what D-38 and D-40 are worth;
//  2. the runtime's CPU per request against the graph alone, in-process (no HTTP, no store),
//     as LangGraph ships and with the runtime's two process-wide settings;
//  3. turn-200 / turn-1 p50 on the runtime;
//  4. `--workers 2` against one process.
// The runtimes log as deployed (LOG_LEVEL info, one line a request, to a file); the load
// comes from wrk when it is on PATH (apt-get install wrk), else from this process.
// Usage: node bin/run-ts.mjs bench/cost.bench.ts
//   (BENCH_ROUNDS, BENCH_DURATION_MS, BENCH_WARMUP_MS, BENCH_TURNS, BENCH_THREADS, BENCH_LOADGEN=node)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONCURRENCY, LOADGEN, REPO, load, start, type LoadResult } from './load.ts';
import { EXAMPLE_TEXT as TEXT, graphAloneCpuMs, turnLatency } from './example.ts';
import { useRandomPool } from '../src/main/runtime/tuning/random-pool.ts';
import { useLightRunContext } from '../src/main/runtime/tuning/run-context.ts';

/** Unmeasured load per server before the rounds. */
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 8000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_DURATION_MS ?? 6000);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const THREADS = Number(process.env.BENCH_THREADS ?? 4);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const f = (n: number) => n.toFixed(2);

/** The graph alone's CPU per invocation: the median of five batches (one batch moves with
 * whatever else the machine does). */
async function floor(): Promise<number> {
  const xs: number[] = [];
  for (let i = 0; i < 5; i++) xs.push(await graphAloneCpuMs());
  return median(xs);
}

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cost-'));
  const env = { SCRIPTED_DELAY_MS: '0', AGENT_ID: 'bench' };
  const runtimeArgs = (data: string, extra: string[] = []) => [
    path.join(REPO, 'bin/agent-studio.mjs'),
    'runtime',
    '--project',
    'examples/support-desk',
    '--port',
    '0',
    ...extra,
    '--data-dir',
    path.join(dir, data),
  ];
  const log = (name: string) => path.join(dir, `${name}.log`);
  const servers = {
    runtime: await start(runtimeArgs('rt'), env, log('rt')),
    peer: await start([path.join(REPO, 'bin/run-ts.mjs'), 'bench/peer-server.ts', path.join(dir, 'peer')], env),
    // LangChain as it ships (D-38, D-40 off): what the two process-wide settings are worth.
    stock: await start(runtimeArgs('rt-stock'), { ...env, RANDOM_POOL: 'off', LIGHT_RUN_CONTEXT: 'off' }, log('rt-stock')),
    workers: await start(runtimeArgs('w2', ['--workers', '2']), env, log('w2')),
  };
  const rounds: Record<'runtime' | 'peer' | 'stock', LoadResult[]> = { runtime: [], peer: [], stock: [] };
  const w1: number[] = [];
  const w2: number[] = [];
  try {
    console.log(
      `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; load from ${LOADGEN}, ${CONCURRENCY} clients; ${ROUNDS} alternating rounds of ${ROUND_MS / 1000} s after ${WARMUP_MS / 1000} s of warm-up per server`,
    );
    // JIT and caches settle over the first thousand requests: every server gets them unmeasured.
    for (const s of Object.values(servers)) await load(s.url, TEXT, undefined, WARMUP_MS);
    for (let i = 0; i < ROUNDS; i++) {
      // The order turns each round, so neither server always follows the same one.
      const order = (['runtime', 'peer', 'stock'] as const).map((_, k, all) => all[(k + i) % all.length]);
      for (const name of order) rounds[name].push(await load(servers[name].url, TEXT, servers[name].child.pid, ROUND_MS));
      const [a, b, c] = [rounds.runtime[i], rounds.peer[i], rounds.stock[i]];
      console.log(
        `  round ${i + 1}: runtime ${f(a.rps)} req/s ${f(a.cpuMsPerRequest ?? NaN)} ms, peer ${f(b.rps)} req/s ${f(b.cpuMsPerRequest ?? NaN)} ms (${f(a.rps / b.rps)}), runtime on stock LangChain ${f(c.rps)} req/s ${f(c.cpuMsPerRequest ?? NaN)} ms`,
      );
    }
    for (let i = 0; i < 2; i++) {
      w1.push((await load(servers.runtime.url, TEXT, undefined, ROUND_MS)).rps);
      w2.push((await load(servers.workers.url, TEXT, undefined, ROUND_MS)).rps);
    }
    const tl = await turnLatency(servers.runtime.url, TURNS, THREADS, 20);
    const stockFloor = await floor();
    // The same graph with the runtime's process-wide settings (D-38 pool, D-40 run context).
    useRandomPool();
    useLightRunContext();
    const tunedFloor = await floor();

    const rps = (name: keyof typeof rounds) => mean(rounds[name].map((r) => r.rps));
    const cpu = (name: keyof typeof rounds) => mean(rounds[name].map((r) => r.cpuMsPerRequest ?? NaN));
    const ratios = rounds.runtime.map((r, i) => r.rps / rounds.peer[i].rps);
    const tp = rps('runtime') / rps('peer');
    const cpuRatio = cpu('runtime') / stockFloor;
    const growth = tl.turnN / tl.turn1;
    console.log(`runtime            : ${f(rps('runtime'))} req/s, ${f(cpu('runtime'))} ms CPU/request`);
    console.log(`hand-wired peer    : ${f(rps('peer'))} req/s, ${f(cpu('peer'))} ms CPU/request`);
    console.log(
      `runtime, stock LangChain (RANDOM_POOL=off LIGHT_RUN_CONTEXT=off): ${f(rps('stock'))} req/s, ${f(cpu('stock'))} ms CPU/request (${f(rps('stock') / rps('peer'))} x the peer)`,
    );
    console.log(
      `graph alone        : ${f(stockFloor)} ms CPU/invocation as LangGraph ships, ${f(tunedFloor)} ms with the runtime's process-wide settings (in-process, no HTTP, no store)`,
    );
    console.log(
      `runtime / peer throughput: ${f(tp)} (per round ${ratios.map(f).join(', ')}; median ${f(median(ratios))}; lowest ${f(Math.min(...ratios))}; target >= 1.0, stretch 1.3)`,
    );
    console.log(`runtime / peer CPU per request: ${f(cpu('runtime') / cpu('peer'))}`);
    console.log(`runtime CPU / graph alone: ${f(cpuRatio)} (target <= 1.3); against the graph with the same settings: ${f(cpu('runtime') / tunedFloor)}`);
    console.log(`turn ${TURNS} / turn 1 p50 : ${f(growth)} (${f(tl.turn1)} -> ${f(tl.turnN)} ms, ${tl.samples} samples each; target <= 1.3)`);
    console.log(
      `--workers 2 / 1 process  : ${f(mean(w2) / mean(w1))} (${f(mean(w1))} -> ${f(mean(w2))} req/s; ${os.cpus().length} cores, the load generator on them too)`,
    );
    const met = tp >= 1 && cpuRatio <= 1.3 && growth <= 1.3;
    console.log(met ? 'targets: met' : 'targets: NOT met');
  } finally {
    for (const s of Object.values(servers)) s.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
