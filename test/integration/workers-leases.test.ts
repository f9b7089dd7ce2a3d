// Runtime processes on one SQLite file (`--workers N`, or several runtimes on one data dir)
// have the guarantees of replicas on PostgreSQL (docs/deployment.md, "Replicas"): a cancel
// asked on one process stops the run on the other, a resubscribe on one follows the other's
// task to its end, settings changed through the management API reach the other, and a task
// whose process is killed with -9 ends `failed` (replica_lost) within the lease.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentCard, Task, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { A2AClient } from '@a2a-js/sdk/client';
import { EXAMPLE, a2aClientWith, sendParams, spawnRuntime, tempDir, type RuntimeProcess } from './helpers/runtime.ts';
import { runRuntimeCli, type LogEntry } from './helpers/cli-process.ts';
import { waitFor } from './helpers/playground-studio.ts';

const LEASE_MS = 1500;
const ENV = { TASK_LEASE_MS: String(LEASE_MS), RUNTIME_SETTINGS_REFRESH_MS: '200', AGENT_ID: 'workers' };
const slow = { metadata: { scriptedDelayMs: 300, scriptedChunks: 20 } };

function statusOf(event: { kind: string }): string | undefined {
  return event.kind === 'status-update' ? (event as TaskStatusUpdateEvent).status.state : undefined;
}

describe('two runtime processes on one SQLite file', () => {
  const dataDir = tempDir('workers-shared');
  let a: RuntimeProcess;
  let b: RuntimeProcess;

  beforeAll(async () => {
    a = await spawnRuntime(EXAMPLE, ENV, { dataDir });
    b = await spawnRuntime(EXAMPLE, ENV, { dataDir });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
  });

  it('a cancel asked on one process stops the run on the other', async () => {
    const states: string[] = [];
    let cancel: Promise<unknown> | null = null;
    for await (const event of a2aClientWith(a.url).sendMessageStream(sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, slow))) {
      const state = statusOf(event);
      if (state) states.push(state);
      if (event.kind === 'artifact-update' && !cancel) cancel = a2aClientWith(b.url).cancelTask({ id: event.taskId });
    }
    const canceled = (await cancel) as { result?: Task; error?: unknown };
    expect(canceled.error).toBeUndefined();
    expect(canceled.result?.status.state).toBe('canceled');
    expect(states.at(-1)).toBe('canceled');
  });

  it('a resubscribe on one process follows the task running on the other to its end', async () => {
    const ownStream = a2aClientWith(a.url).sendMessageStream(
      sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, { metadata: { scriptedDelayMs: 100, scriptedChunks: 12 } }),
    );
    const own = ownStream[Symbol.asyncIterator]();
    const first = (await own.next()).value as Task;
    const followed: string[] = [];
    let text = '';
    for await (const event of a2aClientWith(b.url).resubscribeTask({ id: first.id })) {
      followed.push(statusOf(event) ? `status:${statusOf(event)}` : event.kind);
      if (event.kind === 'artifact-update') for (const p of event.artifact.parts) if (p.kind === 'text') text = event.append ? text + p.text : p.text;
    }
    for (let e = await own.next(); !e.done; e = await own.next());
    const done = ((await a2aClientWith(a.url).getTask({ id: first.id })) as { result: Task }).result;
    expect(followed[0]).toBe('task');
    expect(followed).toContain('artifact-update');
    expect(followed.at(-1)).toBe('status:completed');
    // What the follower put together is the answer as stored.
    const stored = done.artifacts?.flatMap((x) => x.parts).find((p) => p.kind === 'text') as { text: string } | undefined;
    expect(text).toBe(stored?.text);
  });

  it('a card URL and memory setting changed on one process are applied by the other', async () => {
    const patch = (base: string, p: string, body: unknown) =>
      fetch(new URL(p, base), { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await patch(a.url, 'api/v1/card/url', { url: 'https://agents.example.com/workers' })).status).toBe(200);
    expect((await patch(a.url, 'api/v1/memory/config', { window_size: 5 })).status).toBe(200);
    await waitFor(
      async () => ((await (await fetch(`${b.url}.well-known/agent-card.json`)).json()) as AgentCard).url === 'https://agents.example.com/workers',
      5_000,
      'the card URL on the other process',
    );
    const memory = ((await (await fetch(`${b.url}api/v1/memory/config`)).json()) as { data: { window_size: number } }).data;
    expect(memory.window_size).toBe(5);
  });
});

describe('agent-studio runtime --workers 2 on SQLite', () => {
  it('a task whose worker is killed with -9 mid-stream ends failed (replica_lost), and a resubscribed stream ends with it', async () => {
    const p = runRuntimeCli(['--project', EXAMPLE, '--port', '0', '--workers', '2', '--data-dir', tempDir('workers-kill')], ENV);
    try {
      const url = await p.ready;
      // Which worker runs the stream: the replica id the answer names ends with its pid.
      let runner = '';
      const card = (await (await fetch(`${url}.well-known/agent-card.json`)).json()) as AgentCard;
      const client = new A2AClient(
        { ...card, url },
        {
          fetchImpl: async (input, init) => {
            const headers = new Headers(init?.headers);
            headers.set('connection', 'close');
            const res = await fetch(input, { ...init, headers });
            runner ||= res.headers.get('x-runtime-replica') ?? '';
            return res;
          },
        },
      );
      const sent = client.sendMessageStream(
        sendParams('Where is my order ORD-23456?', { contextId: randomUUID() }, { metadata: { scriptedDelayMs: 1000, scriptedChunks: 60 } }),
      );
      const stream = sent[Symbol.asyncIterator]();
      const first = (await stream.next()).value as Task;
      const pid = Number(/-(\d+)$/.exec(runner)?.[1]);
      expect(pid).toBeGreaterThan(0);

      // A follower on the other worker (a new connection per request: try until it lands there).
      let followed: Promise<{ kind: string; final?: boolean; status?: Task['status'] }[]> | null = null;
      for (let i = 0; i < 10 && !followed; i++) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', connection: 'close' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/resubscribe', params: { id: first.id } }),
        });
        if (res.headers.get('x-runtime-replica') === runner) {
          await res.body?.cancel();
          continue;
        }
        followed = sseEvents(res);
      }
      expect(followed).not.toBeNull();

      process.kill(pid, 'SIGKILL');
      await p.until((e: LogEntry) => e.role === 'primary' && /exited unexpectedly/.test(String(e.msg)), 'the worker exited');
      const events = await followed!;
      const last = events.at(-1)!;
      expect(last).toMatchObject({ kind: 'status-update', final: true, status: { state: 'failed' } });
      expect(JSON.stringify(last.status?.message)).toContain('replica_lost');
      const task = ((await client.getTask({ id: first.id })) as { result: Task }).result;
      expect(task.status.state).toBe('failed');
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  }, 40_000);
});

/** The JSON-RPC results of an SSE response, once it ends. */
async function sseEvents(res: Response): Promise<{ kind: string; final?: boolean; status?: Task['status'] }[]> {
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => (JSON.parse(l.slice(5)) as { result: { kind: string; final?: boolean; status?: Task['status'] } }).result);
}
