// `agent-studio runtime --workers N`: replicas for a trial on one machine (docs/deployment.md).
// Two workers behind one port answer as one runtime for everything stored (the SQLite file):
// a conversation continues on the other worker, tasks/get finds the other worker's task; a
// worker killed with -9 is restarted while the other keeps answering; SIGTERM stops them all.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import type { AgentCard } from '@a2a-js/sdk';
import { EXAMPLE, copyExample, sendParams, tempDir } from './helpers/runtime.ts';
import { runRuntimeCli, type LogEntry as CliLogEntry } from './helpers/cli-process.ts';

interface LogEntry extends CliLogEntry {
  role?: string;
  worker?: number;
  worker_pid?: number;
  replica?: string;
  restarts?: number;
}

/** The command as an operator runs it; its JSON log lines (stderr) can be awaited. */
function runCluster(args: string[], env: Record<string, string> = {}) {
  const cli = runRuntimeCli(args, env);
  return {
    ...cli,
    entries: cli.entries as LogEntry[],
    until: cli.until as (pred: (e: LogEntry) => boolean, what: string, timeoutMs?: number) => Promise<LogEntry>,
  };
}

const serving =
  (k: number, restarts = 0) =>
  (e: LogEntry) =>
    e.role === 'primary' && e.worker === k && e.restarts === restarts && /is serving/.test(e.msg ?? '');

/** The official client on a new connection per request (the cluster balances connections, not
 * requests), recording which replica answered each one. */
async function replicaClient(url: string) {
  const answeredBy: string[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('connection', 'close');
    const res = await fetch(input, { ...init, headers });
    answeredBy.push(res.headers.get('x-runtime-replica') ?? '');
    return res;
  };
  const card = (await (await fetchImpl(`${url}.well-known/agent-card.json`)).json()) as AgentCard;
  const client = new A2AClient({ ...card, url }, { fetchImpl });
  return { client, last: () => answeredBy.at(-1)!, probe: async () => (await fetchImpl(`${url}healthz`)).headers.get('x-runtime-replica') ?? '' };
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const task = (res: any) => {
  if (res.error) throw new Error(JSON.stringify(res.error));
  return res.result;
};

describe('agent-studio runtime --workers', () => {
  it('prints the note that thread management is off once, after the one ready line', async () => {
    const p = runCluster(['--project', EXAMPLE, '--port', '0', '--workers', '2', '--data-dir', tempDir('workers')], { AGENT_ID: '' });
    try {
      await p.ready;
      const lines = p.out().trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/ ready at /);
      expect(lines[1]).toMatch(/^Thread management is off, the \/api\/v1\/memory\/threads endpoints answer 409 AGENT_ID_REQUIRED: AGENT_ID is not set/);
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it('serves from two workers on one port as one runtime, restarts a killed worker, and stops them all on SIGTERM', async () => {
    const p = runCluster(['--project', EXAMPLE, '--port', '0', '--workers', '2', '--data-dir', tempDir('workers')]);
    const pids = new Set<number>();
    try {
      const url = await p.ready;
      const [w1, w2] = await Promise.all([p.until(serving(1), 'worker 1 serving'), p.until(serving(2), 'worker 2 serving')]);
      pids.add(w1.worker_pid!).add(w2.worker_pid!);
      // one ready line, printed once every worker listens, with the port they share
      expect(p.out().trim().split('\n')).toHaveLength(1);
      expect([w1.url, w2.url]).toEqual([url, url]);
      expect(w1.replica).not.toBe(w2.replica);
      expect(w1.replica).toMatch(new RegExp(`-${w1.worker_pid}$`));
      const replicas = new Set([w1.replica!, w2.replica!]);

      const { client, last, probe } = await replicaClient(url);
      const seen = new Set<string>();
      for (let i = 0; i < 10 && seen.size < 2; i++) seen.add(await probe());
      expect(seen).toEqual(replicas);

      // A conversation started on one worker continues on the other: the follow-up resumes the
      // refund the first turn asked about (the thread's checkpoints are in the shared store).
      let crossed = 0;
      let firstTask: any;
      let firstReplica = '';
      for (let attempt = 0; attempt < 6 && crossed === 0; attempt++) {
        const first = task(await client.sendMessage(sendParams('I want a refund')));
        expect(first.status.state).toBe('input-required');
        const r1 = last();
        const second = task(await client.sendMessage(sendParams('The order id is ORD-12345', { contextId: first.contextId })));
        if (last() === r1) continue; // the same worker took both turns: try again
        crossed++;
        expect(second.id).toBe(first.id);
        expect(second.contextId).toBe(first.contextId);
        expect(second.status.state).toBe('completed');
        expect(second.artifacts.flatMap((a: any) => a.parts).find((pt: any) => pt.kind === 'data').data).toMatchObject({
          verdict: 'approved',
          orderId: 'ORD-12345',
        });
        firstTask = first;
        firstReplica = r1;
      }
      expect(crossed).toBe(1);

      // tasks/get on the worker that did not create the task
      let foundElsewhere = false;
      for (let i = 0; i < 6 && !foundElsewhere; i++) {
        const got = task(await client.getTask({ id: firstTask.id }));
        if (last() === firstReplica) continue;
        foundElsewhere = true;
        expect(got.status.state).toBe('completed');
      }
      expect(foundElsewhere).toBe(true);

      // the workers' own log lines say which worker wrote them (a worker's log reaches the
      // primary's stderr asynchronously: awaited, not read at once)
      for (const worker of [1, 2]) await p.until((e) => e.role !== 'primary' && e.worker === worker, `a log line of worker ${worker}`);
      const workerLines = p.entries.filter((e) => e.role !== 'primary' && typeof e.worker === 'number');
      expect(new Set(workerLines.map((e) => e.worker))).toEqual(new Set([1, 2]));

      // kill -9 one worker: the other keeps answering, the primary starts a new one in its slot
      process.kill(w1.worker_pid!, 'SIGKILL');
      const crash = await p.until((e) => e.role === 'primary' && e.worker === 1 && /exited unexpectedly/.test(e.msg ?? ''), 'worker 1 exited');
      expect(crash).toMatchObject({ worker_pid: w1.worker_pid, signal: 'SIGKILL', restart_in_ms: expect.any(Number) });
      const during = task(await client.sendMessage(sendParams('How do I reset my password?')));
      expect(during.status.state).toBe('completed');
      expect(last()).toBe(w2.replica);
      const back = await p.until(serving(1, 1), 'worker 1 restarted');
      pids.add(back.worker_pid!);
      expect(back.worker_pid).not.toBe(w1.worker_pid);
      expect(back.url).toBe(url);
      const after = new Set<string>();
      for (let i = 0; i < 10 && after.size < 2; i++) after.add(await probe());
      expect(after).toEqual(new Set([back.replica!, w2.replica!]));
      const resumed = task(await client.getTask({ id: firstTask.id }));
      expect(resumed.status.state).toBe('completed');
      expect(alive(w1.worker_pid!)).toBe(false);

      // SIGTERM to the primary: every worker closes its runtime, the command exits 0
      p.child.kill('SIGTERM');
      expect(await p.exited).toEqual({ code: 0, signal: null });
      for (const pid of [back.worker_pid!, w2.worker_pid!]) expect(alive(pid)).toBe(false);
      expect(p.out().trim().split('\n')).toHaveLength(1);
    } finally {
      if (p.child.exitCode === null) p.child.kill('SIGKILL');
      for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it("prints a broken project's diagnostics once and exits 1, with no restarts", async () => {
    const dir = copyExample('workers-bad');
    const file = path.join(dir, 'agent.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"skills": [', '"skills": 3, "x": ['));
    const p = runCluster(['--project', dir, '--port', '0', '--workers', '2', '--data-dir', tempDir('workers-bad')]);
    expect((await p.exited).code).toBe(1);
    expect(p.err().match(/is not valid:/g)).toHaveLength(1);
    expect(p.err().match(/agent\.json:\d+:\d+ \[skills\]/g)).toHaveLength(1);
    expect(p.out()).toBe('');
    expect(p.entries.filter((e) => /restarting/.test(e.msg ?? ''))).toEqual([]);
  });

  it('refuses a --workers that is not an integer >= 1 or auto', async () => {
    for (const bad of ['0', 'two', '1.5']) {
      const p = runCluster(['--project', EXAMPLE, '--workers', bad]);
      expect((await p.exited).code).toBe(2);
      expect(p.err()).toMatch(/--workers must be an integer >= 1 or 'auto'/);
    }
  });
});
