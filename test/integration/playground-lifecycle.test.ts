// The studio's life cycle over real HTTP with the real runtime child: runtime crashes,
// studio shutdown and crash, changed files (reload, restart, validation failure), an
// unreachable runtime, and the loopback-only rule (spec 5.1; docs/playground-api.md).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunAccepted, RunDetail, RunEvent, Session } from '../../src/shared/playground.ts';
import { defaultRuntimeCommand } from '../../src/main/studio/child/command.ts';
import { startStudio } from '../../src/main/studio/studio.ts';
import {
  BIN,
  EXAMPLE,
  call,
  copyExample,
  openEvents,
  quietLogger,
  startTestStudio,
  tempDir,
  waitFor,
  waitForRun,
  type TestStudio,
} from './helpers/playground-studio.ts';
import { storedSpanEnds } from './helpers/spans.ts';

const SLOW = {
  parts: [{ kind: 'text', text: 'I want a refund for order ORD-12345. Where is my order ORD-23456? How do I reset my password?' }],
  metadata: { scriptedDelayMs: 100, scriptedChunks: 80 },
};
const QUICK = { parts: [{ kind: 'text', text: 'How do I reset my password?' }] };

async function session(t: Pick<TestStudio, 'call'>): Promise<string> {
  return (await t.call<Session>('POST', '/sessions', {})).body.session_id;
}

async function run(t: Pick<TestStudio, 'call'>, sessionId: string, body: unknown): Promise<string> {
  const res = await t.call<RunAccepted>('POST', `/sessions/${sessionId}/runs`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.run_id;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runtime supervision', () => {
  it('kill -9 of the runtime mid-run: the run ends interrupted (runtime_restarted), the runtime comes back, the next run works', async () => {
    const t = await startTestStudio();
    try {
      await t.studio.runtime.waitReady(30_000);
      const before = t.studio.runtime.status()!;
      const s = await session(t);
      const runId = await run(t, s, SLOW);
      const stream = openEvents(t.api, runId);
      await stream.next((m) => m.data.kind === 'output.delta');
      process.kill(before.pid!, 'SIGKILL');
      await stream.ended;
      expect(stream.messages.at(-1)!.data).toMatchObject({ kind: 'run.status', status: 'interrupted', reason: 'runtime_restarted' });
      expect((await waitForRun(t, runId)).reason).toBe('runtime_restarted');
      // The dead runtime cannot close its spans: the studio wrote their ends, interrupted.
      const ends = await storedSpanEnds(t.api, runId);
      expect(ends.find((e) => e.node === 'respond')).toEqual({ node: 'respond', status: 'interrupted', closedBy: 'studio' });
      for (const e of ends) expect(['completed', 'interrupted']).toContain(e.status);

      const after = await waitFor(
        async () => {
          const st = t.studio.runtime.status()!;
          return st.state === 'ready' && st.generation > before.generation ? st : null;
        },
        30_000,
        'the runtime to restart',
      );
      expect(after.pid).not.toBe(before.pid);
      expect(alive(before.pid!)).toBe(false);
      const next = await run(t, s, QUICK);
      expect((await waitForRun(t, next)).status).toBe('completed');
    } finally {
      await t.close();
    }
  });

  it('a runtime that cannot start fails the run runtime_unavailable with a command to paste', async () => {
    const t = await startTestStudio({
      runtimeCommand: () => ({ command: process.execPath, args: ['-e', 'process.stderr.write("boom: the agent cannot start\\n"); process.exit(3)'] }),
    });
    try {
      const s = await session(t);
      const runId = await run(t, s, QUICK);
      const stream = openEvents(t.api, runId);
      await stream.ended;
      const r = await waitForRun(t, runId);
      expect(r).toMatchObject({ status: 'failed', reason: 'runtime_unavailable' });
      const phases = stream.messages.map((m) => m.data).filter((e): e is Extract<RunEvent, { kind: 'run.phase' }> => e.kind === 'run.phase');
      const complete = phases.find((p) => p.phase === 'complete')!;
      expect(complete).toMatchObject({ state: 'failed', reason: 'runtime_unavailable' });
      expect(complete.recommended_run_command).toMatch(/^npx agent-studio runtime --project ".*support-desk" --port \d+$/);
      expect(phases.find((p) => p.phase === 'prepare' && p.state === 'failed')).toMatchObject({
        reason: 'runtime_unavailable',
        detail: expect.stringContaining('boom'),
      });
      expect(r.output_parts.find((p) => p.kind === 'error')).toMatchObject({ message: expect.stringContaining('npx agent-studio runtime') });
    } finally {
      await t.close();
    }
  });
});

describe('changed files', () => {
  it('validates the project: a broken manifest fails the run project_validation with diagnostics; a fixed one reloads', async () => {
    const dir = copyExample('pg-validate');
    const t = await startTestStudio({ projectDir: dir });
    try {
      await t.studio.runtime.waitReady(30_000);
      const manifest = path.join(dir, 'agent.json');
      const good = fs.readFileSync(manifest, 'utf8');
      fs.writeFileSync(manifest, good.replace('"skills": [', '"skills": 3, "unused": ['));
      const s = await session(t);
      const runId = await run(t, s, { ...QUICK, changed_files: ['agent.json'] });
      const stream = openEvents(t.api, runId);
      await stream.ended;
      const r = await waitForRun(t, runId);
      expect(r).toMatchObject({ status: 'failed', reason: 'project_validation', changed_files: ['agent.json'] });
      const diagnostics = stream.messages.map((m) => m.data).filter((e) => e.kind === 'diagnostic');
      expect(diagnostics.length).toBeGreaterThan(0);
      expect(diagnostics[0]).toMatchObject({ severity: 'error', file: 'agent.json', line: expect.any(Number) });
      expect(stream.messages.at(-1)!.data).toMatchObject({ status: 'failed', reason: 'project_validation' });

      // Fixed: validated, applied by hot reload, and the run completes on the runtime that kept serving.
      fs.writeFileSync(manifest, good);
      fs.appendFileSync(path.join(dir, 'prompts/system.md'), '\nBe brief.\n');
      const generation = t.studio.runtime.status()!.generation;
      const ok = await run(t, s, { ...QUICK, changed_files: ['./prompts/system.md', 'agent.json'] });
      const okStream = openEvents(t.api, ok);
      await okStream.ended;
      expect((await waitForRun(t, ok)).status).toBe('completed');
      expect(okStream.messages.map((m) => m.data).find((e) => e.kind === 'run.phase' && e.phase === 'prepare' && e.state === 'completed')).toMatchObject({
        applied: 'reload',
        changed_files: ['prompts/system.md', 'agent.json'],
      });
      expect(t.studio.runtime.status()!.generation).toBe(generation);
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restarts the runtime when it does not answer the reload', async () => {
    const t = await startTestStudio({
      runtimeCommand: (ctx) => ({ ...defaultRuntimeCommand(ctx), env: { INTERNAL_RUNTIME_CONTROL_ENABLED: 'false' } }),
    });
    try {
      await t.studio.runtime.waitReady(30_000);
      const before = t.studio.runtime.status()!;
      const s = await session(t);
      const runId = await run(t, s, { ...QUICK, changed_files: ['src/graph.ts'] });
      const stream = openEvents(t.api, runId);
      await stream.ended;
      expect((await waitForRun(t, runId)).status).toBe('completed');
      expect(stream.messages.map((m) => m.data).find((e) => e.kind === 'run.phase' && e.phase === 'prepare' && e.state === 'completed')).toMatchObject({
        applied: 'restart',
      });
      const after = t.studio.runtime.status()!;
      expect(after.generation).toBeGreaterThan(before.generation);
      expect(alive(before.pid!)).toBe(false);
    } finally {
      await t.close();
    }
  });
  it('a broken TypeScript file under a runtime that cannot reload: the restarted child reports the diagnostics, the run fails project_validation', async () => {
    const dir = copyExample('pg-broken-ts');
    const t = await startTestStudio({
      projectDir: dir,
      runtimeCommand: (ctx) => ({ ...defaultRuntimeCommand(ctx), env: { INTERNAL_RUNTIME_CONTROL_ENABLED: 'false' } }),
    });
    try {
      await t.studio.runtime.waitReady(30_000);
      fs.appendFileSync(path.join(dir, 'src/graph.ts'), '\nexport const broken = ;\n');
      const s = await session(t);
      const runId = await run(t, s, { ...QUICK, changed_files: ['src/graph.ts'] });
      const stream = openEvents(t.api, runId);
      await stream.ended;
      expect(await waitForRun(t, runId)).toMatchObject({ status: 'failed', reason: 'project_validation' });
      const diagnostics = stream.messages.map((m) => m.data).filter((e) => e.kind === 'diagnostic');
      expect(diagnostics[0]).toMatchObject({ severity: 'error', file: expect.stringContaining('graph.ts') });
    } finally {
      await t.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('studio shutdown and restart', () => {
  it('graceful shutdown ends active runs interrupted (studio_shutdown) and stops the runtime; the next start serves them', async () => {
    const dataDir = tempDir('pg-shutdown');
    const t = await startTestStudio({ dataDir });
    await t.studio.runtime.waitReady(30_000);
    const runtimePid = t.studio.runtime.status()!.pid!;
    const s = await session(t);
    const runId = await run(t, s, SLOW);
    const stream = openEvents(t.api, runId);
    await stream.next((m) => m.data.kind === 'output.delta');
    await t.close();
    await stream.ended;
    expect(stream.messages.at(-1)!.data).toMatchObject({ kind: 'run.status', status: 'interrupted', reason: 'studio_shutdown' });
    expect(alive(runtimePid)).toBe(false);

    const again = await startTestStudio({ dataDir });
    try {
      const r = (await again.call<RunDetail>('GET', `/runs/${runId}`)).body;
      expect(r).toMatchObject({ status: 'interrupted', reason: 'studio_shutdown' });
      const replay = openEvents(again.api, runId);
      await replay.ended;
      expect(replay.messages.filter((m) => m.data.kind === 'run.status').at(-1)!.data).toMatchObject({ status: 'interrupted' });
      expect(replay.messages.filter((m) => m.data.kind === 'run.status' && m.data.status === 'interrupted')).toHaveLength(1);
      expect((await storedSpanEnds(again.api, runId)).find((e) => e.node === 'respond')).toMatchObject({ status: 'interrupted' });
      const next = await run(again, s, QUICK);
      expect((await waitForRun(again, next)).status).toBe('completed');
    } finally {
      await again.close();
    }
  });

  it('a studio killed with a run active: its runtime stops on its own, and on the next start the run is interrupted (studio_shutdown)', async () => {
    const dataDir = tempDir('pg-crash');
    const child = spawn(process.execPath, [BIN, 'serve', '--project', EXAMPLE, '--port', '0', '--data-dir', dataDir], {
      env: { ...process.env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.resume();
    const exited = new Promise((r) => child.on('exit', r));
    try {
      const url = await waitFor(async () => /ready at (http:\/\/\S+)/.exec(out)?.[1], 30_000, 'serve to print its URL');
      expect(out.trim().split('\n')).toHaveLength(1);
      const api = `${url}api/playground/v1`;
      const s = (await call<Session>(api, 'POST', '/sessions', {})).body.session_id;
      const runId = (await call<RunAccepted>(api, 'POST', `/sessions/${s}/runs`, SLOW)).body.run_id;
      const stream = openEvents(api, runId);
      await stream.next((m) => m.data.kind === 'output.delta', 30_000);
      const orphan = Number(fs.readFileSync(path.join(dataDir, 'runtime.pid'), 'utf8'));
      expect(alive(orphan)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      stream.close();
      // The orphan notices its studio is gone (it was reparented) and stops.
      await waitFor(async () => !alive(orphan), 10_000, 'the orphaned runtime to stop on its own');

      const again = await startStudio({ projectDir: EXAMPLE, port: 0, dataDir, logger: quietLogger() });
      try {
        const r = await call<RunDetail>(`${again.url}api/playground/v1`, 'GET', `/runs/${runId}`);
        expect(r.body).toMatchObject({ status: 'interrupted', reason: 'studio_shutdown' });
        // The run a crash left active: its open spans were closed when the studio started again.
        const ends = await storedSpanEnds(`${again.url}api/playground/v1`, runId);
        expect(ends.find((e) => e.node === 'respond')).toEqual({ node: 'respond', status: 'interrupted', closedBy: 'studio' });
        await waitFor(async () => !alive(orphan), 10_000, 'the orphaned runtime to stop');
      } finally {
        await again.close();
      }
    } finally {
      child.kill('SIGKILL');
    }
  });
});

describe('one studio per data dir', () => {
  it("refuses a second studio on the same data dir, which would end the first one's runs", async () => {
    const dataDir = tempDir('pg-lock');
    const first = await startStudio({ projectDir: EXAMPLE, port: 0, dataDir, runtimeCommand: false, logger: quietLogger() });
    try {
      await expect(startStudio({ projectDir: EXAMPLE, port: 0, dataDir, runtimeCommand: false, logger: quietLogger() })).rejects.toMatchObject({
        code: 'DATA_DIR_IN_USE',
        message: expect.stringContaining('already uses the data dir'),
      });
    } finally {
      await first.close();
    }
    const second = await startStudio({ projectDir: EXAMPLE, port: 0, dataDir, runtimeCommand: false, logger: quietLogger() });
    await second.close();
  });
});

describe('loopback only', () => {
  it('refuses --host 0.0.0.0 with a clear message', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--project', EXAMPLE, '--host', '0.0.0.0', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(2);
    expect(err).toMatch(/--host 0\.0\.0\.0 is refused: .*loopback only \(127\.0\.0\.1\)/);
    await expect(startStudio({ projectDir: EXAMPLE, host: '192.168.1.10', runtimeCommand: false })).rejects.toThrow(/loopback only/);
  });
});

describe('renderer', () => {
  it('serves the built renderer at / with SPA fallback, and JSON 404s for API paths', async () => {
    const rendererDir = tempDir('pg-renderer');
    fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>Agent Studio</title>');
    fs.mkdirSync(path.join(rendererDir, 'assets'));
    fs.writeFileSync(path.join(rendererDir, 'assets', 'app.js'), 'console.log(1)');
    const studio = await startStudio({
      projectDir: EXAMPLE,
      port: 0,
      dataDir: tempDir('pg-renderer-data'),
      rendererDir,
      runtimeCommand: false,
      logger: quietLogger(),
    });
    try {
      const root = await fetch(studio.url);
      expect(root.headers.get('content-type')).toMatch(/text\/html/);
      expect(await root.text()).toContain('<title>Agent Studio</title>');
      expect(await (await fetch(`${studio.url}assets/app.js`)).text()).toBe('console.log(1)');
      const deep = await fetch(`${studio.url}sessions/ses_x/runs/run_y`);
      expect(await deep.text()).toContain('<title>Agent Studio</title>');
      const api = await fetch(`${studio.url}api/playground/v1/nope`);
      expect(api.status).toBe(404);
      expect(((await api.json()) as { detail: { error: string } }).detail.error).toBe('not_found');
      expect((await fetch(`${studio.url}api/other`)).status).toBe(404);
    } finally {
      await studio.close();
    }
  });
});
