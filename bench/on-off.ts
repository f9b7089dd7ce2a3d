// What a runtime feature costs, side by side in one run: two runtime processes on the example
// (the feature on, the feature off), loaded in alternating rounds so drift on the machine hits
// both alike, with the CPU each spends a request read from /proc. The spans and OpenTelemetry
// benches use it; loopback only, bounded.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, load, start } from './load.ts';

export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
export const ROUND_MS = Number(process.env.BENCH_DURATION_MS ?? 4000);
/** Four nodes, two fan-out branches, one model call. */
export const TEXT = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';

type Runtime = Awaited<ReturnType<typeof start>>;

/** Starts the two runtimes, runs the alternating rounds (each printed with `label`), stops
 * them, and answers the median CPU a request of each side. `between` runs after the rounds,
 * while both runtimes still answer (the OTLP bench reads its sink's status there). */
export async function onOff(
  label: string,
  env: { on: Record<string, string>; off: Record<string, string> },
  between?: (on: Runtime) => Promise<void>,
): Promise<{ on: number; off: number; paired: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${label}-`));
  const runtime = (name: string, extra: Record<string, string>) =>
    start([path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'examples/support-desk', '--port', '0', '--data-dir', path.join(dataDir, name)], {
      SCRIPTED_DELAY_MS: '0',
      AGENT_ID: 'bench',
      ...extra,
    });
  const on = await runtime('on', env.on);
  const off = await runtime('off', env.off);
  try {
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${ROUNDS} alternating rounds of ${ROUND_MS} ms each`);
    const cpu = { on: [] as number[], off: [] as number[] };
    for (let r = 0; r < ROUNDS; r++) {
      const order: [keyof typeof cpu, Runtime][] =
        r % 2
          ? [
              ['off', off],
              ['on', on],
            ]
          : [
              ['on', on],
              ['off', off],
            ];
      for (const [name, server] of order) {
        const res = await load(server.url, TEXT, server.child.pid, ROUND_MS);
        if (res.cpuMsPerRequest !== null) cpu[name].push(res.cpuMsPerRequest);
        console.log(
          `round ${r + 1} ${label} ${name.padEnd(3)}: ${res.rps.toFixed(1)} req/s, p50 ${res.p50.toFixed(1)} ms, ${res.cpuMsPerRequest?.toFixed(3) ?? 'n/a'} ms CPU/request`,
        );
      }
    }
    await between?.(on);
    // Each round's two sides ran next to each other: the median of their ratios moves less
    // with the machine's load than the ratio of the two medians.
    const paired = cpu.on.slice(0, cpu.off.length).map((v, i) => v / cpu.off[i]!);
    return { on: median(cpu.on), off: median(cpu.off), paired: median(paired) };
  } finally {
    on.child.kill('SIGTERM');
    off.child.kill('SIGTERM');
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Prints the medians and their ratio against the target; the exit code says whether it held. */
export function report(label: string, cpu: { on: number; off: number; paired?: number }, target: number): void {
  const ratio = cpu.on / cpu.off;
  const paired = cpu.paired !== undefined ? `; median of the rounds' ratios ${cpu.paired.toFixed(3)}` : '';
  console.log(
    `CPU per request: ${label} on ${cpu.on.toFixed(3)} ms, off ${cpu.off.toFixed(3)} ms (medians): ratio ${ratio.toFixed(3)} (target <= ${target})${paired}; load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  process.exitCode = ratio <= target ? 0 : 1;
}
