// Experiment throughput (docs/performance.md, "Experiments"), in one run on the offline
// scripted model (SCRIPTED_DELAY_MS=0): the same N messages (default 500)
//  1. as an experiment of the headless studio over a dataset of N single-turn cases
//     (each a real run: hidden session, executor, trace capture, event log, assertions), and
//  2. sent straight to the same runtime child over A2A (`message/stream`, read to the end),
//  3. the same with a capture token on each (the runtime's trace work and posts, which a
//     studio run pays; the studio drops them as unknown),
// both with the same concurrency (default 4). Target: the experiment at >= 0.8x the direct
// throughput. Also the CPU each process spends a message (this process, which is the studio,
// and the runtime child, from /proc): unlike the throughput, that hardly moves with the load of
// other work on the machine; and where the runtime's main thread spent each side's wall time
// (running, waiting for a core, idle: waiting for the studio or the client).
// Usage: node bin/run-ts.mjs bench/experiment.bench.ts   (BENCH_CASES, BENCH_CONCURRENCY,
// BENCH_WARMUP, BENCH_ROUNDS: the three sides measured in that many alternating turns). Profiles: `node --cpu-prof bin/run-ts.mjs ...` profiles the studio (this
// process); BENCH_RUNTIME_CPU_PROF=DIR starts the runtime child with `--cpu-prof` writing into
// DIR (Node refuses `--cpu-prof` in NODE_OPTIONS). Each phase's start and end is printed on the
// monotonic clock both profiles use (`phase NAME START END`, microseconds), to cut them apart.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { runtimeClient } from '../src/main/playground/executor/a2a.ts';
import { RESERVED_CAPTURE_KEY } from '../src/shared/runtime-contract.ts';
import { startStudio } from '../src/main/studio/studio.ts';
import { defaultRuntimeCommand } from '../src/main/studio/child/command.ts';
import { REPO } from './load.ts';

const CASES = Number(process.env.BENCH_CASES ?? 500);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const TEXTS = ['Where is my order ORD-23456?', 'I want a refund for order ORD-12345', 'How do I reset my password?', 'When will ORD-34567 arrive?'];

async function main(): Promise<void> {
  process.env.SCRIPTED_DELAY_MS = '0';
  // A copy inside the repo (so 'agent-studio/sdk' resolves) holding the benchmark's dataset.
  const dir = path.join(REPO, 'test/.tmp', `bench-experiment-${randomUUID().slice(0, 8)}`);
  fs.cpSync(path.join(REPO, 'examples/support-desk'), dir, { recursive: true, filter: (s) => !s.includes('.agent-studio') && !s.endsWith('.env') });
  const lines = Array.from({ length: CASES }, (_, i) =>
    JSON.stringify({ id: `case-${i}`, input: { text: TEXTS[i % TEXTS.length] }, expected: { assertions: [{ type: 'final_state', state: 'completed' }] } }),
  );
  fs.writeFileSync(path.join(dir, 'evals', 'bench.jsonl'), `${lines.join('\n')}\n`);
  const dataDir = path.join(dir, '.agent-studio', 'studio');
  const profDir = process.env.BENCH_RUNTIME_CPU_PROF;
  const studio = await startStudio({
    projectDir: dir,
    port: 0,
    dataDir,
    logger: pino({ level: 'warn' }),
    ...(profDir
      ? {
          runtimeCommand: (ctx) => {
            const spec = defaultRuntimeCommand(ctx);
            return { ...spec, args: ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profDir)}`, ...spec.args] };
          },
        }
      : {}),
  });
  try {
    const baseUrl = await studio.runtime.waitReady(120_000);
    if (!baseUrl) throw new Error('the runtime did not start');
    const { runner, store } = studio.experiments;

    // Warm-up of every side measured below (the JIT optimises the runtime's code over the first
    // few hundred turns; the side measured first would pay it): turns straight, captured, and a
    // small experiment.
    const WARM = Number(process.env.BENCH_WARMUP ?? 200);
    await direct(baseUrl, WARM);
    await direct(baseUrl, WARM, true);
    await experiment(
      runner,
      store,
      Array.from({ length: Math.min(WARM, CASES) }, (_, i) => `case-${i}`),
    );

    // BENCH_ROUNDS > 1 measures the three sides in turns of CASES / ROUNDS each (experiment,
    // straight, captured, again), so the load of other work on a shared machine falls on all
    // three alike; the figures are the sums over the rounds.
    const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1));
    const pid = studio.runtime.status()?.pid ?? null;
    const sides = ['experiment', 'direct', 'captured'] as const;
    const spent = Object.fromEntries(sides.map((k) => [k, { ms: 0, studio: 0, runtime: 0, onCpu: 0, runnable: 0 }])) as Record<
      (typeof sides)[number],
      { ms: number; studio: number; runtime: number; onCpu: number; runnable: number }
    >;
    const timed = async <T>(side: (typeof sides)[number], work: () => Promise<T>): Promise<T> => {
      const cpu = cpuNow(pid);
      const sched = mainThread(pid);
      const mark = monotonicUs();
      const t = Date.now();
      const out = await work();
      spent[side].ms += Date.now() - t;
      const now = cpuNow(pid);
      const after = mainThread(pid);
      spent[side].onCpu += after.onCpu - sched.onCpu;
      spent[side].runnable += after.runnable - sched.runnable;
      spent[side].studio += now.studio - cpu.studio;
      spent[side].runtime += now.runtime - cpu.runtime;
      phase(side, mark);
      return out;
    };
    const e = { passed: 0, other: 0, ids: [] as string[] };
    let failures = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const from = Math.floor((r * CASES) / ROUNDS);
      const to = Math.floor(((r + 1) * CASES) / ROUNDS);
      const one = await timed('experiment', () =>
        experiment(runner, store, ROUNDS > 1 ? Array.from({ length: to - from }, (_, i) => `case-${from + i}`) : null),
      );
      e.passed += one.passed;
      e.other += one.other;
      e.ids.push(one.id);
      failures += await timed('direct', () => direct(baseUrl, to - from));
      // 3. The same, each with a capture token the studio does not know: the runtime does all
      // its trace work and posts it (the studio answers 404 and drops it).
      await timed('captured', () => direct(baseUrl, to - from, true));
    }
    const cpuText = (side: (typeof sides)[number]) =>
      `CPU a message: studio ${(spent[side].studio / CASES).toFixed(1)} ms, runtime ${pid ? `${(spent[side].runtime / CASES).toFixed(1)} ms` : '?'}`;
    const expMs = spent.experiment.ms;
    const directMs = spent.direct.ms;
    const capturedMs = spent.captured.ms;
    const expCpu = cpuText('experiment');
    const directCpu = cpuText('direct');
    const capturedCpu = cpuText('captured');
    const expRate = (CASES / expMs) * 1000;
    const directRate = (CASES / directMs) * 1000;
    console.log(
      `experiment: ${CASES} cases, concurrency ${CONCURRENCY}: ${(expMs / 1000).toFixed(1)} s, ${expRate.toFixed(1)} cases/s (${e.passed} passed, ${e.other} other); ${expCpu}`,
    );
    console.log(
      `direct A2A: ${CASES} messages, concurrency ${CONCURRENCY}: ${(directMs / 1000).toFixed(1)} s, ${directRate.toFixed(1)} msgs/s (${failures} not completed); ${directCpu}`,
    );
    console.log(`direct A2A with trace capture on: ${(capturedMs / 1000).toFixed(1)} s, ${((CASES / capturedMs) * 1000).toFixed(1)} msgs/s; ${capturedCpu}`);
    console.log(`ratio: ${(expRate / directRate).toFixed(2)}x (target >= 0.8x)`);
    // The runtime's main thread over each side's wall time: running, runnable but waiting for a
    // core, and idle (waiting for the studio or the client: nothing of its own to do).
    for (const side of sides) {
      const s = spent[side];
      const idle = s.ms - s.onCpu - s.runnable;
      console.log(
        `runtime main thread, ${side}: a message ${(s.onCpu / CASES).toFixed(2)} ms running, ${(s.runnable / CASES).toFixed(2)} ms waiting for a core, ${(idle / CASES).toFixed(2)} ms idle (${((idle / s.ms) * 100).toFixed(1)} %)`,
      );
    }
    // Where an experiment run's time goes: admitted -> invoking (the wait for a slot, D-118;
    // prepare, connect) and
    // invoking -> ended (the runtime's answer, its trace capture and evaluators).
    const api = `${studio.url}api/playground/v1`;
    const sample = e.ids.flatMap((id) => store.allCases(id)).slice(0, 100);
    let before = 0;
    let exec = 0;
    for (const c of sample) {
      const run = (await (await fetch(`${api}/runs/${c.run_id}`)).json()) as { created_at: string; started_at: string; ended_at: string };
      before += Date.parse(run.started_at) - Date.parse(run.created_at);
      exec += Date.parse(run.ended_at) - Date.parse(run.started_at);
    }
    console.log(
      `experiment runs (mean of ${sample.length}): ${(before / sample.length).toFixed(0)} ms admitted -> invoking, ${(exec / sample.length).toFixed(0)} ms invoking -> ended`,
    );
  } finally {
    await studio.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function experiment(
  runner: Awaited<ReturnType<typeof startStudio>>['experiments']['runner'],
  store: Awaited<ReturnType<typeof startStudio>>['experiments']['store'],
  cases: string[] | null,
): Promise<{ id: string; passed: number; other: number }> {
  const { experiment_id } = runner.start({ dataset: 'bench', concurrency: CONCURRENCY, ...(cases ? { cases } : {}) });
  // Waits for the store's end event: polling (the row, or the runner's state every few ms)
  // would count the benchmark's own reads, or its timer's granularity, against the experiment.
  await store.whenFinished(experiment_id);
  const c = store.counts(experiment_id);
  return { id: experiment_id, passed: c.passed, other: c.total - c.passed };
}

/** Microseconds on the monotonic clock that V8's CPU profiles of both processes are timed by. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Prints a phase's span on that clock; answers its end (the next phase's start). */
function phase(name: string, start: number): number {
  const end = monotonicUs();
  console.log(`phase ${name} ${start} ${end}`);
  return end;
}

/** CPU milliseconds used so far by this process and by the runtime child (/proc, Linux). */
function cpuNow(pid: number | null): { studio: number; runtime: number } {
  const c = process.cpuUsage();
  let runtime = 0;
  try {
    // utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks (100 a second).
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    runtime = (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    // not Linux, or no child
  }
  return { studio: (c.user + c.system) / 1000, runtime };
}

/** Milliseconds the runtime child's main thread spent on a core and runnable waiting for one
 * (/proc/PID/task/PID/schedstat, Linux; zeros elsewhere). */
function mainThread(pid: number | null): { onCpu: number; runnable: number } {
  try {
    const [onCpu, runnable] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { onCpu: onCpu! / 1e6, runnable: runnable! / 1e6 };
  } catch {
    return { onCpu: 0, runnable: 0 };
  }
}

/** `n` messages to the runtime over A2A message/stream, `CONCURRENCY` at a time, each read to
 * its end; answers how many did not complete. */
async function direct(baseUrl: string, n: number, captured = false): Promise<number> {
  let next = 0;
  let bad = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const client = runtimeClient(baseUrl);
      let state = '';
      const metadata = captured ? { [RESERVED_CAPTURE_KEY]: { capture_token: `bench-${randomUUID()}` } } : undefined;
      const stream = client.sendMessageStream({
        message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: TEXTS[i % TEXTS.length]! }] },
        ...(metadata ? { metadata } : {}),
      });
      for await (const ev of stream) {
        const e = ev as { kind?: string; status?: { state?: string } };
        if (e.kind === 'status-update' || e.kind === 'task') state = e.status?.state ?? state;
      }
      if (state !== 'completed') bad += 1;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return bad;
}

await main();
process.exit(0);
