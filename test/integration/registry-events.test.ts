// Registry change events on NATS (spec 6.4): an event for one agent
// reloads that agent exactly as POST /api/v1/registry/reload does, and not another agent on
// the same NATS; the outcome comes back to the publisher (`agent-studio registry-event`).
import fs from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO, copyExample, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startNats, type TestNats } from './helpers/nats.ts';
import { waitFor } from './helpers/playground-studio.ts';

const run = promisify(execFile);

async function status(rt: TestRuntime): Promise<any> {
  return ((await (await fetch(`${rt.url}api/v1/status`)).json()) as { data: unknown }).data;
}

/** `agent-studio registry-event ...`: exit code and the outcome lines. */
async function publish(nats: TestNats, args: string[]): Promise<{ code: number; outcomes: any[]; stderr: string }> {
  const r = await run(process.execPath, [path.join(REPO, 'bin/agent-studio.mjs'), 'registry-event', '--nats', nats.url, '--wait', '1500', ...args]).then(
    (ok) => ({ code: 0, stdout: ok.stdout, stderr: ok.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
  return {
    code: r.code,
    outcomes: r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    stderr: r.stderr,
  };
}

describe('registry change events on NATS', () => {
  let nats: TestNats;
  let a: TestRuntime;
  let b: TestRuntime;
  let dirA: string;
  beforeAll(async () => {
    nats = await startNats();
    dirA = copyExample('registry-a');
    const env = { REGISTRY_EVENTS: 'nats', NATS_URL: nats.url };
    [a, b] = await Promise.all([
      startTestRuntime({ projectDir: dirA, env: { ...env, AGENT_ID: 'desk-a' } }),
      startTestRuntime({ projectDir: copyExample('registry-b'), env: { ...env, AGENT_ID: 'desk-b' } }),
    ]);
    for (const rt of [a, b]) await waitFor(async () => (await status(rt)).registry_events?.state === 'subscribed', 10_000, 'registry events to subscribe');
  });
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await nats?.stop();
  });

  it("reloads the agent it names, with the reload endpoint's outcome, and not the other agent", async () => {
    fs.appendFileSync(path.join(dirA, 'prompts/system.md'), '\nAlways greet the customer by name.\n');
    const r = await publish(nats, ['--agent', 'desk-a', '--version', 'v2', '--component', 'prompt:system', '--reason', 'prompt edited']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.outcomes).toEqual([
      expect.objectContaining({
        agent_id: 'desk-a',
        version: 'v2',
        outcome: 'reloaded',
        generation: 2,
        previous_generation: 1,
        changed: [expect.objectContaining({ kind: 'prompt', name: 'system' })],
      }),
    ]);
    expect(a.runtime.context.registry.current.number).toBe(2);
    expect(b.runtime.context.registry.current.number).toBe(1);
    expect((await status(b)).registry_events).toMatchObject({ received: 1, ignored: 1, reloaded: 0 });
    expect((await status(a)).registry_events).toMatchObject({ received: 1, ignored: 0, reloaded: 1 });

    // Nothing changed since: unchanged, same generation.
    const again = await publish(nats, ['--agent', 'desk-a']);
    expect(again.outcomes).toEqual([expect.objectContaining({ outcome: 'unchanged', generation: 2 })]);
  });

  it('reports a project that does not load as failed with its diagnostics, and keeps serving the old generation', async () => {
    const graph = path.join(dirA, 'src/graph.ts');
    const good = fs.readFileSync(graph, 'utf8');
    fs.writeFileSync(graph, `${good}\nexport const broken = ;\n`);
    try {
      const r = await publish(nats, ['--agent', 'desk-a', '--version', 'v3']);
      expect(r.code).toBe(1);
      expect(r.outcomes[0]).toMatchObject({
        outcome: 'failed',
        version: 'v3',
        error: { code: 'RELOAD_FAILED', diagnostics: [expect.objectContaining({ file: 'src/graph.ts' })] },
      });
      expect(a.runtime.context.registry.current.number).toBe(2);
    } finally {
      fs.writeFileSync(graph, good);
    }
  });

  it('says so when no replica of the agent answers', async () => {
    const r = await publish(nats, ['--agent', 'nobody-here']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain("no replica of 'nobody-here' answered within 1500 ms");
  });
});
