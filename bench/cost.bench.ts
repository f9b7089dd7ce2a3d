// The runtime's cost per request, in one run, alternating rounds:
//  1. message/send throughput and CPU per request of the runtime against the hand-wired peer
//     (bench/peer-server.ts: @a2a-js/sdk + the same graph on LangGraph's SQLite saver with
//     durability "exit", WAL, synchronous=NORMAL), both serving the offline example; beside
//     them the runtime with LangChain's process-wide behaviour as shipped (RANDOM_POOL=off,
//     LIGHT_RUN_CONTEXT=off), to show what D-38 and D-40 are worth;
//  2. the runtime's CPU per request against the graph alone, in-process (no HTTP, no store),
//     as LangGraph ships and with the runtime's two process-wide settings;
//  3. turn-200 / turn-1 p50 on the runtime;
//  4. `--workers 2` against one process;
//  5. on PostgreSQL (the same database server, a schema each): the runtime against the same
//     hand-wired peer on LangGraph's PostgresSaver (durability "exit" as the runtime's, and
//     "async" beside it), in the same alternating rounds, and against itself on SQLite; its
//     turn-200 / turn-1 p50 (the median of three runs, alternating with the SQLite runtime's);
//     what a turn costs the database (round trips, reads, commits), counted through a proxy
//     (bench/pg-counter.ts) for the runtime and the peer.
// Needs this machine's PostgreSQL (POSTGRES_DSN, default postgresql://postgres@127.0.0.1:5432/test).
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
import { BenchSchemas, DSN, countTurns, dbCpuSeconds, fmtCounts, named, peerPg, pgEnv } from './cost-pg.ts';

/** Unmeasured load per server before the rounds. */
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 8000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_MS = Number(process.env.BENCH_DURATION_MS ?? 6000);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const THREADS = Number(process.env.BENCH_THREADS ?? 4);
/** Threads of each of the three turn-latency runs per backend after the first. */
const PG_THREADS = Number(process.env.BENCH_PG_THREADS ?? 2);

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
  const schemas = new BenchSchemas();
  const app = (label: string) => `bench-cost-${label}-${schemas.tag}`;
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
    runtimePg: await start(runtimeArgs('rt-pg'), { ...env, ...pgEnv(named(DSN, app('rt')), schemas.name('rt')) }, log('rt-pg')),
    peerPg: await peerPg(named(DSN, app('peer')), schemas.name('peer'), 'exit'),
    peerPgAsync: await peerPg(named(DSN, app('peer_async')), schemas.name('peer_async'), 'async'),
  };
  const NAMES = ['runtime', 'peer', 'stock', 'runtimePg', 'peerPg', 'peerPgAsync'] as const;
  const rounds: Record<(typeof NAMES)[number], LoadResult[]> = { runtime: [], peer: [], stock: [], runtimePg: [], peerPg: [], peerPgAsync: [] };
  // The database server's CPU per request (its backends serving each server's pool).
  const DB_APP: Partial<Record<(typeof NAMES)[number], string>> = {
    runtimePg: app('rt'),
    peerPg: app('peer'),
    peerPgAsync: app('peer_async'),
  };
  const dbCpu: Record<string, number[]> = { runtimePg: [], peerPg: [], peerPgAsync: [] };
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
      const order = NAMES.map((_, k, all) => all[(k + i) % all.length]);
      for (const name of order) {
        const app = DB_APP[name];
        const db0 = app ? await dbCpuSeconds(app) : 0;
        const r = await load(servers[name].url, TEXT, servers[name].child.pid, ROUND_MS);
        if (app) dbCpu[name].push((((await dbCpuSeconds(app)) - db0) * 1000) / r.n);
        rounds[name].push(r);
      }
      const [a, b, c] = [rounds.runtime[i], rounds.peer[i], rounds.stock[i]];
      const [p, q, r] = [rounds.runtimePg[i], rounds.peerPg[i], rounds.peerPgAsync[i]];
      console.log(
        `  round ${i + 1}: runtime ${f(a.rps)} req/s ${f(a.cpuMsPerRequest ?? NaN)} ms, peer ${f(b.rps)} req/s ${f(b.cpuMsPerRequest ?? NaN)} ms (${f(a.rps / b.rps)}), runtime on stock LangChain ${f(c.rps)} req/s ${f(c.cpuMsPerRequest ?? NaN)} ms`,
      );
      console.log(
        `           PostgreSQL: runtime ${f(p.rps)} req/s ${f(p.cpuMsPerRequest ?? NaN)} ms, PostgresSaver peer ${f(q.rps)} req/s ${f(q.cpuMsPerRequest ?? NaN)} ms (${f(p.rps / q.rps)}), peer durability async ${f(r.rps)} req/s (${f(p.rps / r.rps)})`,
      );
    }
    for (let i = 0; i < 2; i++) {
      w1.push((await load(servers.runtime.url, TEXT, undefined, ROUND_MS)).rps);
      w2.push((await load(servers.workers.url, TEXT, undefined, ROUND_MS)).rps);
    }
    // Three turn-latency runs per backend, alternating (this machine's noise is about ±20 %).
    const tls: Awaited<ReturnType<typeof turnLatency>>[] = [];
    const tlsPg: Awaited<ReturnType<typeof turnLatency>>[] = [];
    for (let i = 0; i < 3; i++) {
      tls.push(await turnLatency(servers.runtime.url, TURNS, i === 0 ? THREADS : PG_THREADS, i === 0 ? 20 : 0));
      tlsPg.push(await turnLatency(servers.runtimePg.url, TURNS, PG_THREADS, i === 0 ? 20 : 0));
    }
    const tl = tls[0];
    for (const s of Object.values(servers)) s.child.kill('SIGTERM');
    // What a turn costs the database, through the counting proxy (fresh servers, their own schemas).
    const costs = {
      runtime: await countTurns((dsn) => start(runtimeArgs('rt-pg-count'), { ...env, ...pgEnv(dsn, schemas.name('rt_count')) }, log('rt-pg-count'))),
      peer: await countTurns((dsn) => peerPg(dsn, schemas.name('peer_count'), 'exit')),
      peerAsync: await countTurns((dsn) => peerPg(dsn, schemas.name('peer_async_count'), 'async')),
    };
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
    console.log('PostgreSQL (same server, a schema each):');
    const pgTp = rps('runtimePg') / rps('peerPg');
    const pgRatios = rounds.runtimePg.map((r, i) => r.rps / rounds.peerPg[i].rps);
    const pgSelf = rps('runtimePg') / rps('runtime');
    const pgGrowths = tlsPg.map((t) => t.turnN / t.turn1);
    const pgGrowth = median(pgGrowths);
    console.log(`  runtime                     : ${f(rps('runtimePg'))} req/s, ${f(cpu('runtimePg'))} ms CPU/request`);
    console.log(`  PostgresSaver peer, exit    : ${f(rps('peerPg'))} req/s, ${f(cpu('peerPg'))} ms CPU/request`);
    console.log(`  PostgresSaver peer, async   : ${f(rps('peerPgAsync'))} req/s, ${f(cpu('peerPgAsync'))} ms CPU/request`);
    console.log(
      `  the database server's CPU per request: runtime ${f(mean(dbCpu.runtimePg))} ms, peer exit ${f(mean(dbCpu.peerPg))} ms, peer async ${f(mean(dbCpu.peerPgAsync))} ms (its backends for each server's pool)`,
    );
    console.log(
      `  runtime / PostgresSaver peer throughput: ${f(pgTp)} (per round ${pgRatios.map(f).join(', ')}; median ${f(median(pgRatios))}; target >= 1.0, stretch 1.3); against the peer at durability async: ${f(rps('runtimePg') / rps('peerPgAsync'))}`,
    );
    console.log(`  runtime on PostgreSQL / on SQLite: ${f(pgSelf)} (target >= 0.85)`);
    console.log(
      `  turn ${TURNS} / turn 1 p50 on PostgreSQL: ${f(pgGrowth)} (median of ${pgGrowths.map(f).join(', ')}; ${tlsPg.map((t) => `${f(t.turn1)} -> ${f(t.turnN)} ms`).join(', ')}; target <= 1.2); on SQLite in the same runs: ${tls.map((t) => f(t.turnN / t.turn1)).join(', ')}`,
    );
    console.log(`  per warm turn, runtime        : ${fmtCounts(costs.runtime.warm)}`);
    console.log(`  per warm turn, peer exit      : ${fmtCounts(costs.peer.warm)}`);
    console.log(`  per warm turn, peer async     : ${fmtCounts(costs.peerAsync.warm)}`);
    console.log(`  per request at ${CONCURRENCY} clients, runtime   : ${fmtCounts(costs.runtime.loaded)}`);
    console.log(`  per request at ${CONCURRENCY} clients, peer exit : ${fmtCounts(costs.peer.loaded)}`);
    console.log(
      `--workers 2 / 1 process  : ${f(mean(w2) / mean(w1))} (${f(mean(w1))} -> ${f(mean(w2))} req/s; ${os.cpus().length} cores, the load generator on them too)`,
    );
    const met = tp >= 1 && cpuRatio <= 1.3 && growth <= 1.3 && pgTp >= 1 && pgSelf >= 0.85 && pgGrowth <= 1.2;
    console.log(met ? 'targets: met' : 'targets: NOT met');
  } finally {
    for (const s of Object.values(servers)) s.child.kill('SIGTERM');
    await schemas.drop().catch((err: Error) => console.error(`schemas not dropped: ${err.message}`));
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
