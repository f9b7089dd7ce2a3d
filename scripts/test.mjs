#!/usr/bin/env node
// `npm test`: typecheck, lint, unit, integration and e2e suites, stopping at the first that
// fails (whatever else is still running is stopped), each step's result and time printed.
// Arranged for a two-core machine, in two phases:
//  1. The renderer (needed by the integration and e2e suites) builds in the background
//     beside typecheck, lint and unit, which run one after another with their output live.
//     The build and one check at a time keep both cores busy.
//  2. Integration and e2e side by side: each keeps about one core busy at most (much of their
//     time is spent waiting on child processes, sockets and the browser), so together they
//     take little more than the integration suite alone. Their output is held and printed
//     whole when each ends, so the two never interleave.
// Phase 2 starts once phase 1 has passed: a failing check stops the run within a minute, and
// the suites get both cores once the build is done.
import { spawn } from 'node:child_process';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const started = Date.now();
const running = new Set();
const times = [];

/** Runs `npm run <script>` in its own process group (so a failure elsewhere can stop it with
 * every process it started); `quiet` holds its output for the caller. */
function run(name, script, { quiet = false } = {}) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(npm, ['run', script], {
      stdio: ['ignore', quiet ? 'pipe' : 'inherit', quiet ? 'pipe' : 'inherit'],
      detached: process.platform !== 'win32',
    });
    running.add(child);
    let out = '';
    if (quiet) {
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
    }
    // The result once the process has exited and its output is read to the end, or 2 s after
    // the exit when something it started still holds the output open.
    let done = false;
    const finish = (code, signal) => {
      if (done) return;
      done = true;
      running.delete(child);
      resolve({ name, code: code ?? (signal ? 1 : 0), out, seconds: Math.round((Date.now() - t0) / 1000) });
    };
    child.on('close', finish);
    child.on('exit', (code, signal) => setTimeout(() => finish(code, signal), 2000).unref());
  });
}

function stopAll(signal = 'SIGTERM') {
  for (const child of running) {
    try {
      if (process.platform === 'win32') child.kill(signal);
      else process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  }
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopAll(signal);
    process.exit(130);
  });
}

/** Prints a step's result (and its held output when `showOutput`, or when it failed); the
 * first failure stops everything and exits with the step's code. */
function step(result, { showOutput = false } = {}) {
  if (result.out && (showOutput || result.code !== 0)) process.stdout.write(result.out);
  console.log(`\n[test] ${result.name}: ${result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`} in ${result.seconds} s\n`);
  if (result.code !== 0) {
    stopAll();
    process.exit(result.code);
  }
  times.push(`${result.name} ${result.seconds} s`);
}

// Phase 1.
const build = run('renderer build (background)', 'build:renderer:if-needed', { quiet: true });
void build.then((result) => result.code !== 0 && step(result));
for (const [name, script] of [
  ['typecheck', 'typecheck'],
  ['lint', 'lint'],
  ['unit', 'test:unit'],
]) {
  step(await run(name, script));
}
step(await build);

// Phase 2.
console.log("[test] integration and e2e side by side; each one's output is printed when it ends\n");
await Promise.all(
  [run('integration', 'test:integration', { quiet: true }), run('e2e', 'test:e2e:built', { quiet: true })].map((p) =>
    p.then((result) => step(result, { showOutput: true })),
  ),
);

console.log(`[test] all passed in ${Math.round((Date.now() - started) / 1000)} s (${times.join(', ')})`);
