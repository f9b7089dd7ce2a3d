// The runtime's cost per request (issue 18), in one run, alternating rounds:
//  1. message/send throughput and CPU per request of the runtime against the hand-wired peer
//     (bench/peer-server.ts: @a2a-js/sdk + the same graph on LangGraph's SQLite saver with
//     durability "exit", WAL, synchronous=NORMAL), both serving the offline example;
//  2. the runtime's CPU per request against the graph alone, in-process (no HTTP, no store);
//  3. turn-200 / turn-1 p50 on the runtime;
//  4. `--workers 2` against one process;
//  5. the runtime with RANDOM_POOL=off, beside them, to show what D-38's pool is worth.
// Usage: node bin/run-ts.mjs bench/cost.bench.ts   (BENCH_ROUNDS, BENCH_DURATION_MS, BENCH_WARMUP_MS, BENCH_TURNS)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONCURRENCY, REPO, load, start } from './load.ts';
import { EXAMPLE_TEXT as TEXT, graphAloneCpuMs, turnLatency } from './example.ts';

/** Unmeasured load per server before the rounds. */
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 8000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const f = (n: number) => n.toFixed(2);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cost-'));
  const env = { SCRIPTED_DELAY_MS: '0', AGENT_ID: 'bench' };
  const runtimeArgs = (data: string, extra: string[] = []) => [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'examples/support-desk', '--port', '0', ...extra, '--data-dir', path.join(dir, data)];
  const runtime = await start(runtimeArgs('rt'), env);
  const peer = await start([path.join(REPO, 'bin/run-ts.mjs'), 'bench/peer-server.ts', path.join(dir, 'peer')], env);
  // The runtime with getRandomValues as Node ships it (D-38), to show what the pool is worth.
  const noPool = await start(runtimeArgs('rt-nopool'), { ...env, RANDOM_POOL: 'off' });
  const workers = await start(runtimeArgs('w2', ['--workers', '2']), env);
  const r = { runtime: [] as number[], peer: [] as number[], noPool: [] as number[], rtCpu: [] as number[], peerCpu: [] as number[], noPoolCpu: [] as number[], ratio: [] as number[], w1: [] as number[], w2: [] as number[] };
  try {
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${CONCURRENCY} clients, ${ROUNDS} alternating rounds after a warm-up`);
    // JIT and caches settle over the first thousand requests: every server gets them unmeasured.
    for (const s of [runtime, peer, noPool, workers]) await load(s.url, TEXT, undefined, WARMUP_MS);
    for (let i = 0; i < ROUNDS; i++) {
      const a = await load(runtime.url, TEXT, runtime.child.pid);
      const b = await load(peer.url, TEXT, peer.child.pid);
      const c = await load(noPool.url, TEXT, noPool.child.pid);
      r.runtime.push(a.rps);
      r.peer.push(b.rps);
      r.noPool.push(c.rps);
      r.ratio.push(a.rps / b.rps);
      if (a.cpuMsPerRequest !== null) r.rtCpu.push(a.cpuMsPerRequest);
      if (b.cpuMsPerRequest !== null) r.peerCpu.push(b.cpuMsPerRequest);
      if (c.cpuMsPerRequest !== null) r.noPoolCpu.push(c.cpuMsPerRequest);
      console.log(`  round ${i + 1}: runtime ${f(a.rps)} req/s, peer ${f(b.rps)} req/s (${f(a.rps / b.rps)}), runtime without the pool ${f(c.rps)} req/s`);
    }
    for (let i = 0; i < Math.min(ROUNDS, 2); i++) {
      r.w1.push((await load(runtime.url, TEXT)).rps);
      r.w2.push((await load(workers.url, TEXT)).rps);
    }
    const floor = await graphAloneCpuMs();
    const tl = await turnLatency(runtime.url, TURNS, THREADS, 20);
    const growth = tl.turnN / tl.turn1;
    const tp = mean(r.runtime) / mean(r.peer);
    const cpuRatio = mean(r.rtCpu) / floor;
    console.log(`runtime            : ${f(mean(r.runtime))} req/s, ${f(mean(r.rtCpu))} ms CPU/request`);
    console.log(`hand-wired peer    : ${f(mean(r.peer))} req/s, ${f(mean(r.peerCpu))} ms CPU/request`);
    console.log(`runtime, RANDOM_POOL=off: ${f(mean(r.noPool))} req/s, ${f(mean(r.noPoolCpu))} ms CPU/request (${f(mean(r.noPool) / mean(r.peer))} x the peer)`);
    console.log(`graph alone        : ${f(floor)} ms CPU/invocation (in-process, no HTTP, no store)`);
    console.log(`runtime / peer throughput: ${f(tp)} (median of rounds ${f(median(r.ratio))}; target >= 1.0, stretch 1.3)`);
    console.log(`runtime CPU / graph alone: ${f(cpuRatio)} (target <= 1.3)`);
    console.log(`turn ${TURNS} / turn 1 p50 : ${f(growth)} (target <= 1.3)`);
    console.log(`--workers 2 / 1 process  : ${f(mean(r.w2) / mean(r.w1))} (${os.cpus().length} cores)`);
    const met = tp >= 1 && cpuRatio <= 1.3 && growth <= 1.3;
    console.log(met ? 'targets: met' : 'targets: NOT met');
  } finally {
    for (const s of [runtime, peer, noPool, workers]) s.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
