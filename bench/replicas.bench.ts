// Replicas on PostgreSQL, in one run, alternating rounds: message/send throughput,
// p50 and p99 at 16 clients for the runtime on SQLite (one process, what a user starts
// with), on PostgreSQL with one process, and on PostgreSQL with `--workers 2` (two replicas
// behind one port); then the turn-200 / turn-1 latency on PostgreSQL.
// Needs this machine's PostgreSQL (POSTGRES_DSN, default postgresql://postgres@127.0.0.1:5432/test).
// Usage: node bin/run-ts.mjs bench/replicas.bench.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import { CONCURRENCY, REPO, load, start } from './load.ts';
import { EXAMPLE_TEXT as TEXT, turnLatency } from './example.ts';

const DSN = process.env.POSTGRES_DSN ?? 'postgresql://postgres@127.0.0.1:5432/test';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TURNS = Number(process.env.BENCH_TURNS ?? 200);
const THREADS = Number(process.env.BENCH_THREADS ?? 2);

async function sql(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: DSN });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

async function main() {
  const schema = `bench_${crypto.randomBytes(4).toString('hex')}`;
  const dataDirs = [0, 1, 2].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'bench-replicas-')));
  const runtime = (dataDir: string, extra: string[], env: Record<string, string>) =>
    start([path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'examples/support-desk', '--port', '0', '--data-dir', dataDir, ...extra], {
      SCRIPTED_DELAY_MS: '0',
      AGENT_ID: 'bench',
      ...env,
    });
  const pgEnv = { MEMORY_BACKEND: 'postgres', POSTGRES_DSN: DSN, POSTGRES_SCHEMA: schema };
  const servers = {
    'SQLite, 1 process': await runtime(dataDirs[0], [], {}),
    'PostgreSQL, 1 process': await runtime(dataDirs[1], [], pgEnv),
    'PostgreSQL, --workers 2': await runtime(dataDirs[2], ['--workers', '2'], pgEnv),
  };
  const results: Record<string, { rps: number[]; p50: number[]; p99: number[] }> = {};
  try {
    console.log(
      `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}; ${CONCURRENCY} clients, ${ROUNDS} alternating rounds`,
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, s] of Object.entries(servers)) {
        const r = await load(s.url, TEXT);
        results[name] ??= { rps: [], p50: [], p99: [] };
        results[name].rps.push(r.rps);
        results[name].p50.push(r.p50);
        results[name].p99.push(r.p99);
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const base = mean(results['SQLite, 1 process'].rps);
    for (const [name, r] of Object.entries(results)) {
      console.log(
        `${name.padEnd(24)}: ${mean(r.rps).toFixed(1)} req/s (x${(mean(r.rps) / base).toFixed(2)} of SQLite)  p50 ${mean(r.p50).toFixed(1)} ms  p99 ${mean(r.p99).toFixed(1)} ms`,
      );
    }
    const one = mean(results['PostgreSQL, 1 process'].rps);
    console.log(`--workers 2 / 1 process on PostgreSQL: x${(mean(results['PostgreSQL, --workers 2'].rps) / one).toFixed(2)}`);
    const tl = await turnLatency(servers['PostgreSQL, 1 process'].url, TURNS, THREADS);
    console.log(
      `turn latency on PostgreSQL: turns 1-5 p50 ${tl.turn1.toFixed(1)} ms, turns ${TURNS - 4}-${TURNS} p50 ${tl.turnN.toFixed(1)} ms, ratio ${(tl.turnN / tl.turn1).toFixed(2)} (target <= 1.3)`,
    );
  } finally {
    for (const s of Object.values(servers)) s.child.kill('SIGTERM');
    await Promise.all(Object.values(servers).map((s) => new Promise((r) => (s.child.exitCode !== null ? r(null) : s.child.once('exit', r)))));
    for (const d of dataDirs) fs.rmSync(d, { recursive: true, force: true });
    await sql(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}

await main();
