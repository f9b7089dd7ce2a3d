// What the OpenTelemetry sink costs (docs/runtime-traces.md, "OpenTelemetry"): the runtime's
// CPU per message/send on the example with TRACE_SINKS=log,otlp (protobuf to a local
// collector stand-in that accepts every export) against the same runtime with TRACE_SINKS=log,
// in one run. Two runtime processes, loaded in alternating rounds so drift on the machine hits
// both alike; CPU per request from /proc. Loopback only, bounded.
// Usage: node bin/run-ts.mjs bench/otlp.bench.ts
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { REPO, load, start } from './load.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const ROUND_MS = Number(process.env.BENCH_DURATION_MS ?? 4000);
const TEXT = 'I want a refund for order ORD-12345. Where is my order ORD-23456?'; // four nodes, two fan-out branches, one model call

async function main() {
  let exports = 0;
  let bytes = 0;
  const collector = http.createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
  const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-otlp-'));
  const runtime = (name: string, env: Record<string, string>) =>
    start([path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'examples/support-desk', '--port', '0', '--data-dir', path.join(dataDir, name)], {
      SCRIPTED_DELAY_MS: '0',
      AGENT_ID: 'bench',
      ...env,
    });
  const on = await runtime('on', { TRACE_SINKS: 'log,otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint });
  const off = await runtime('off', { TRACE_SINKS: 'log', ...(process.env.BENCH_OFF_STAGE_TIMING ? { STAGE_TIMING: 'true' } : {}) });
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
          `round ${r + 1} otlp ${name.padEnd(3)}: ${res.rps.toFixed(1)} req/s, p50 ${res.p50.toFixed(1)} ms, ${res.cpuMsPerRequest?.toFixed(3) ?? 'n/a'} ms CPU/request`,
        );
      }
    }
    const status = (await (await fetch(`${on.url}api/v1/status`)).json()) as { data: { trace_sinks: { otlp: Record<string, unknown> } } };
    console.log(`collector: ${exports} exports, ${(bytes / 1024).toFixed(0)} KiB; sink status ${JSON.stringify(status.data.trace_sinks.otlp)}`);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ratio = median(cpu.on) / median(cpu.off);
    console.log(
      `CPU per request: otlp on ${median(cpu.on).toFixed(3)} ms, off ${median(cpu.off).toFixed(3)} ms (medians): ratio ${ratio.toFixed(3)} (target <= 1.03)`,
    );
    process.exitCode = ratio <= 1.03 ? 0 : 1;
  } finally {
    on.child.kill('SIGTERM');
    off.child.kill('SIGTERM');
    collector.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
