// What checkpointing every step costs (CHECKPOINT_DURABILITY, docs/performance.md): the
// example agent in three runtime processes side by side, `exit` (the deployed default: one
// checkpoint a turn), `async` (every step, not awaited: the studio's child) and `sync` (every
// step, awaited). Each round sends `turns` sequential turns to one thread of each runtime in
// turn (rotating which goes first); reports the p50 turn latency and the runtime's CPU per
// turn, and their ratios to `exit`.
// Usage: node bin/run-ts.mjs bench/durability.bench.ts [turns=60] [rounds=3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { cpuSeconds, pct, REPO, send, start } from './load.ts';

const [turns = 60, rounds = 3] = process.argv.slice(2).map(Number);
const MODES = ['exit', 'async', 'sync'] as const;
const TEXT = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';

const servers: Record<string, { url: string; child: ChildProcess; thread: string; latencies: number[]; cpuMs: number; turns: number }> = {};
for (const mode of MODES) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `durability-${mode}-`));
  const { url, child } = await start(
    [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', path.join(REPO, 'examples/support-desk'), '--port', '0', '--data-dir', dataDir],
    { CHECKPOINT_DURABILITY: mode, AGENT_ID: 'bench', SCRIPTED_DELAY_MS: '0' },
  );
  servers[mode] = { url, child, thread: randomUUID(), latencies: [], cpuMs: 0, turns: 0 };
  for (let i = 0; i < 5; i++) await send(url, TEXT, servers[mode].thread); // warm-up, same thread
}
console.log(`checkpoint durability, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)}; ${rounds} rounds of ${turns} turns`);
for (let r = 0; r < rounds; r++) {
  const order = [...MODES.slice(r % MODES.length), ...MODES.slice(0, r % MODES.length)];
  for (const mode of order) {
    const s = servers[mode]!;
    const cpu0 = cpuSeconds(s.child.pid);
    for (let i = 0; i < turns; i++) {
      const t0 = performance.now();
      await send(s.url, TEXT, s.thread);
      s.latencies.push(performance.now() - t0);
    }
    const cpu1 = cpuSeconds(s.child.pid);
    if (cpu0 !== null && cpu1 !== null) s.cpuMs += (cpu1 - cpu0) * 1000;
    s.turns += turns;
  }
}
const base = servers.exit!;
const p50 = (s: { latencies: number[] }) =>
  pct(
    [...s.latencies].sort((a, b) => a - b),
    50,
  );
console.log('| durability | p50 turn | CPU per turn | p50 / exit | CPU / exit |');
console.log('|---|---|---|---|---|');
for (const mode of MODES) {
  const s = servers[mode]!;
  const cpu = s.cpuMs / s.turns;
  console.log(
    `| ${mode} | ${p50(s).toFixed(1)} ms | ${cpu.toFixed(2)} ms | ${(p50(s) / p50(base)).toFixed(2)} | ${(cpu / (base.cpuMs / base.turns)).toFixed(2)} |`,
  );
}
for (const s of Object.values(servers)) s.child.kill('SIGTERM');
