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
/** Fresh pairs of processes, one after another: two processes of the same code can differ by
 * several per cent for as long as they live (JIT, heap layout), so one pair cannot resolve a
 * few per cent; the rounds of every pair are pooled. */
export const PAIRS = Number(process.env.BENCH_PAIRS ?? 1);
/** BENCH_SAME=1: both sides get the "off" settings (an A/A run), to show the method's own spread. */
const SAME = process.env.BENCH_SAME === '1';
/** Four nodes, two fan-out branches, one model call. */
export const TEXT = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';

type Runtime = Awaited<ReturnType<typeof start>>;

/** Starts the two runtimes (PAIRS times, fresh each time), runs the alternating rounds (each
 * printed with `label`), stops them, and answers the median CPU a request of each side and the
 * median of the rounds' paired ratios. `between` runs after the last pair's rounds, while both
 * runtimes still answer (the OTLP bench reads its sink's status there). */
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
  const onEnv = SAME ? env.off : env.on;
  console.log(
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}; ${PAIRS} pair(s) of processes, ${ROUNDS} alternating rounds of ${ROUND_MS} ms each${SAME ? '; A/A: both sides off' : ''}`,
  );
  const cpu = { on: [] as number[], off: [] as number[] };
  const paired: number[] = [];
  try {
    for (let p = 0; p < PAIRS; p++) {
      // Which side starts first alternates between pairs too.
      const first = p % 2 ? await runtime(`off${p}`, env.off) : await runtime(`on${p}`, onEnv);
      const second = p % 2 ? await runtime(`on${p}`, onEnv) : await runtime(`off${p}`, env.off);
      const on = p % 2 ? second : first;
      const off = p % 2 ? first : second;
      try {
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
          const round: Partial<Record<keyof typeof cpu, number>> = {};
          for (const [name, server] of order) {
            const res = await load(server.url, TEXT, server.child.pid, ROUND_MS);
            if (res.cpuMsPerRequest !== null) {
              cpu[name].push(res.cpuMsPerRequest);
              round[name] = res.cpuMsPerRequest;
            }
            console.log(
              `pair ${p + 1} round ${r + 1} ${label} ${name.padEnd(3)}: ${res.rps.toFixed(1)} req/s, p50 ${res.p50.toFixed(1)} ms, ${res.cpuMsPerRequest?.toFixed(3) ?? 'n/a'} ms CPU/request`,
            );
          }
          // Each round's two sides ran next to each other: the median of their ratios moves
          // less with the machine's load than the ratio of the two medians.
          if (round.on !== undefined && round.off !== undefined) paired.push(round.on / round.off);
        }
        if (p === PAIRS - 1) await between?.(on);
      } finally {
        on.child.kill('SIGTERM');
        off.child.kill('SIGTERM');
      }
    }
    return { on: median(cpu.on), off: median(cpu.off), paired: median(paired) };
  } finally {
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
