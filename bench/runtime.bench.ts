// Runtime benchmark (docs/performance.md, "Agent runtime"), in one run:
//  1. message/send throughput, p50 and p99 at 16 concurrent clients: the runtime serving
//     the offline example (scripted model, no chunk delay) against a bare @a2a-js/sdk echo
//     server. Both servers run as their own processes; this process only sends load.
//  2. p50 turn latency at turn 1 versus turn 200 of one thread (several threads measured).
//  3. Where the time goes: CPU per request of each server process during (1), the runtime
//     serving a one-node echo graph (bench/echo-graph: what the runtime costs around the
//     smallest graph), and the CPU of
//     one invocation of the example's graph alone (in this process, no HTTP, no store, an
//     in-memory checkpointer, the stream modes message/send uses): the floor the runtime
//     cannot go under while it runs the graph through LangGraph.
// Loopback only, bounded in count and time. Usage: node bin/run-ts.mjs bench/runtime.bench.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CONCURRENCY, REPO, load, start } from './load.ts';
import { graphAloneCpuMs, turnLatency } from './example.ts';
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const THREADS = Number(process.env.BENCH_THREADS ?? 3);

const f = (n: number) => n.toFixed(1);
const cpu = (ms: number | null) => (ms === null ? 'cpu n/a' : `${ms.toFixed(2)} ms CPU/request`);

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-runtime-'));
  const echo = await start([path.join(REPO, 'bin/run-ts.mjs'), 'bench/echo-server.ts']);
  const runtime = await start(
    [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'examples/support-desk', '--port', '0', '--data-dir', dataDir],
    {
      SCRIPTED_DELAY_MS: '0',
      AGENT_ID: 'bench',
    },
  );
  try {
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`);
    const echoRes = await load(echo.url, 'How do I reset my password?', echo.child.pid);
    console.log(
      `echo server     : ${f(echoRes.rps)} req/s  p50 ${f(echoRes.p50)} ms  p99 ${f(echoRes.p99)} ms  (${echoRes.n} requests, ${CONCURRENCY} clients; ${cpu(echoRes.cpuMsPerRequest)})`,
    );
    const rtRes = await load(runtime.url, 'How do I reset my password?', runtime.child.pid);
    console.log(
      `runtime example : ${f(rtRes.rps)} req/s  p50 ${f(rtRes.p50)} ms  p99 ${f(rtRes.p99)} ms  (${rtRes.n} requests, ${CONCURRENCY} clients; ${cpu(rtRes.cpuMsPerRequest)})`,
    );
    const ratio = rtRes.rps / echoRes.rps;
    console.log(`throughput ratio: ${ratio.toFixed(3)} (target >= 0.25)`);
    const tl = await turnLatency(runtime.url, TURNS, THREADS);
    const growth = tl.turnN / tl.turn1;
    console.log(
      `turn latency    : turns 1-5 p50 ${f(tl.turn1)} ms, turns ${TURNS - 4}-${TURNS} p50 ${f(tl.turnN)} ms, ratio ${growth.toFixed(2)} (target <= 2; ${THREADS} threads)`,
    );
    const small = await start(
      [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'bench/echo-graph', '--port', '0', '--data-dir', path.join(dataDir, 'echo-graph')],
      {
        AGENT_ID: 'bench',
      },
    );
    try {
      const smallRes = await load(small.url, 'How do I reset my password?', small.child.pid);
      console.log(
        `runtime, 1 node : ${f(smallRes.rps)} req/s  p50 ${f(smallRes.p50)} ms  p99 ${f(smallRes.p99)} ms  (bench/echo-graph; ${cpu(smallRes.cpuMsPerRequest)}; ratio ${(smallRes.rps / echoRes.rps).toFixed(3)})`,
      );
    } finally {
      small.child.kill('SIGTERM');
    }
    const floor = await graphAloneCpuMs();
    const ceiling = 1000 / floor / echoRes.rps;
    console.log(
      `graph alone     : ${floor.toFixed(2)} ms CPU/invocation (in-process, no HTTP, no store): one core runs at most ${f(1000 / floor)} invocations/s = ${ceiling.toFixed(3)}x the echo server`,
    );
    const ok = ratio >= 0.25 && growth <= 2;
    console.log(ok ? 'targets: met' : 'targets: NOT met');
    process.exitCode = ok ? 0 : 1;
  } finally {
    echo.child.kill('SIGTERM');
    runtime.child.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
