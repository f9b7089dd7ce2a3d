// What the A2A 1.0 path costs against the 0.3 path (D-86): one runtime on the example, loaded
// in alternating rounds with blocking sends over 0.3 JSON-RPC (`message/send`) and over 1.0
// JSON-RPC (`SendMessage`, `A2A-Version: 1.0`), with the CPU the runtime spends a request read
// from /proc. Loopback only, bounded. Usage: node bin/run-ts.mjs bench/a2a-versions.bench.ts
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO, cpuSeconds, start } from './load.ts';
import { ROUND_MS, ROUNDS, TEXT } from './on-off.ts';

const CONCURRENCY = 8;

const bodies = {
  '0.3': () => ({
    headers: {},
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: TEXT }] } },
    },
    ok: (r: any) => r.result?.status?.state === 'completed',
  }),
  '1.0': () => ({
    headers: { 'A2A-Version': '1.0' },
    body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { role: 'ROLE_USER', messageId: randomUUID(), parts: [{ text: TEXT }] } } },
    ok: (r: any) => r.result?.task?.status?.state === 'TASK_STATE_COMPLETED',
  }),
};

async function round(url: string, pid: number | undefined, version: keyof typeof bodies) {
  const cpu0 = cpuSeconds(pid);
  const end = Date.now() + ROUND_MS;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < end) {
        const b = bodies[version]();
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...b.headers }, body: JSON.stringify(b.body) });
        const json = await res.json();
        if (!b.ok(json)) throw new Error(`unexpected ${version} answer: ${JSON.stringify(json).slice(0, 300)}`);
        done++;
      }
    }),
  );
  const cpu1 = cpuSeconds(pid);
  return { rps: done / (ROUND_MS / 1000), cpuMs: cpu0 !== null && cpu1 !== null ? ((cpu1 - cpu0) * 1000) / done : null };
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-a2a-versions-'));
const rt = await start([path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', 'examples/support-desk', '--port', '0', '--data-dir', dataDir], {
  SCRIPTED_DELAY_MS: '0',
  AGENT_ID: 'bench',
});
try {
  console.log(
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load ${os.loadavg()[0]!.toFixed(1)}; ${ROUNDS} alternating rounds of ${ROUND_MS} ms`,
  );
  await round(rt.url, rt.child.pid, '0.3'); // warm-up of both paths
  await round(rt.url, rt.child.pid, '1.0');
  const cpu = { '0.3': [] as number[], '1.0': [] as number[] };
  const rps = { '0.3': [] as number[], '1.0': [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const v of (r % 2 ? ['1.0', '0.3'] : ['0.3', '1.0']) as (keyof typeof bodies)[]) {
      const res = await round(rt.url, rt.child.pid, v);
      if (res.cpuMs !== null) cpu[v].push(res.cpuMs);
      rps[v].push(res.rps);
      console.log(`round ${r + 1} A2A ${v}: ${res.rps.toFixed(1)} req/s, ${res.cpuMs?.toFixed(3) ?? 'n/a'} ms CPU/request`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const ratio = median(cpu['1.0']) / median(cpu['0.3']);
  console.log(
    `medians: 0.3 ${median(cpu['0.3']).toFixed(3)} ms CPU/request, ${median(rps['0.3']).toFixed(1)} req/s; 1.0 ${median(cpu['1.0']).toFixed(3)} ms, ${median(rps['1.0']).toFixed(1)} req/s; CPU ratio 1.0/0.3 ${ratio.toFixed(3)}`,
  );
} finally {
  rt.child.kill('SIGTERM');
  fs.rmSync(dataDir, { recursive: true, force: true });
}
