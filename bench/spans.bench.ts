// What node spans cost (docs/runtime-traces.md): the runtime's CPU per message/send on the
// example with spans on (the default) against the same runtime with NODE_SPANS=off (the
// trace as it was before spans), in one run. Two runtime processes, loaded in alternating
// rounds so drift on the machine hits both alike; CPU per request from /proc.
// Loopback only, bounded. Usage: node bin/run-ts.mjs bench/spans.bench.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, load, start } from './load.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const ROUND_MS = Number(process.env.BENCH_DURATION_MS ?? 4000);
const TEXT = 'I want a refund for order ORD-12345. Where is my order ORD-23456?'; // four nodes and two fan-out branches

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-spans-'));
  const runtime = (name: string, env: Record<string, string>) =>
    start([path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'examples/support-desk', '--port', '0', '--data-dir', path.join(dataDir, name)], {
      SCRIPTED_DELAY_MS: '0',
      AGENT_ID: 'bench',
      ...env,
    });
  const on = await runtime('on', {});
  const off = await runtime('off', { NODE_SPANS: 'off' });
  try {
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${ROUNDS} alternating rounds of ${ROUND_MS} ms each`);
    const cpu = { on: [] as number[], off: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const [name, server] of (r % 2
        ? [
            ['off', off],
            ['on', on],
          ]
        : [
            ['on', on],
            ['off', off],
          ]) as [keyof typeof cpu, typeof on][]) {
        const res = await load(server.url, TEXT, server.child.pid, ROUND_MS);
        if (res.cpuMsPerRequest !== null) cpu[name].push(res.cpuMsPerRequest);
        console.log(
          `round ${r + 1} spans ${name.padEnd(3)}: ${res.rps.toFixed(1)} req/s, p50 ${res.p50.toFixed(1)} ms, ${res.cpuMsPerRequest?.toFixed(3) ?? 'n/a'} ms CPU/request`,
        );
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ratio = median(cpu.on) / median(cpu.off);
    console.log(
      `CPU per request: spans on ${median(cpu.on).toFixed(3)} ms, off ${median(cpu.off).toFixed(3)} ms (medians): ratio ${ratio.toFixed(3)} (target <= 1.10)`,
    );
    process.exitCode = ratio <= 1.1 ? 0 : 1;
  } finally {
    on.child.kill('SIGTERM');
    off.child.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
