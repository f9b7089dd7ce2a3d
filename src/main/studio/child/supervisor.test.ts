// The supervisor against a fake runtime child (test/fixtures/fake-runtime-child.mjs) that
// prints the contract's real ready and diagnostics lines: what a user sees of the runtime
// (ready URL and port, restarts with backoff, diagnostics of a project that does not load,
// reload or restart of changed files, a hung child replaced, a clean stop).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { formatDiagnosticsLine, formatReadyLine } from '../../../shared/runtime-contract.ts';
import { RuntimeSupervisor, type SupervisorOptions } from './supervisor.ts';

const FAKE = path.resolve(import.meta.dirname, '../../../../test/fixtures/fake-runtime-child.mjs');
const running: RuntimeSupervisor[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop()));
});

interface LogEntry {
  msg: string;
  [key: string]: unknown;
}

function supervise(env: Record<string, string> = {}, opts: Partial<SupervisorOptions> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'supervisor-'));
  const logs: LogEntry[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => logs.push(JSON.parse(line) as LogEntry) });
  const supervisor = new RuntimeSupervisor({
    projectDir: dataDir,
    dataDir,
    captureUrl: 'http://127.0.0.1:9/internal/capture',
    logger,
    backoffMs: [20],
    command: (ctx) => ({
      command: process.execPath,
      args: [FAKE, '--port', String(ctx.port)],
      env: { FAKE_READY_LINE: formatReadyLine('fake', '{URL}'), ...env },
    }),
    ...opts,
  });
  running.push(supervisor);
  return { supervisor, logs, dataDir };
}

/** Resolves with the generation of the next child that exits. */
const nextExit = (s: RuntimeSupervisor) =>
  new Promise<number>((resolve) => {
    const off = s.onExit((g) => {
      off();
      resolve(g);
    });
  });

const childEnv = async (url: string) => (await (await fetch(`${url}env`)).json()) as Record<string, string | number>;

describe('runtime supervisor', () => {
  it('takes the URL and port from the ready line, and gives the child the studio pid and its control token', async () => {
    const { supervisor, logs, dataDir } = supervise();
    supervisor.start();
    const url = await supervisor.waitReady(10_000);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const status = supervisor.status();
    expect(status).toMatchObject({ state: 'ready', url, port: Number(new URL(url!).port), generation: 1, restarts: 0 });
    const env = await childEnv(url!);
    expect(env).toMatchObject({ pid: status.pid, studioPid: String(process.pid), child: '1', control: 'true' });
    expect(supervisor.controlHeaders()).toEqual({ authorization: `Bearer ${env.token}` });
    expect(fs.readFileSync(path.join(dataDir, 'runtime.pid'), 'utf8')).toBe(String(status.pid));
    expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining(['runtime starting', 'runtime ready']));
    expect(logs.find((l) => l.msg === 'runtime output')).toMatchObject({ runtime: 'starting' });
  });

  it('restarts a child that dies, after the backoff, on the same port and with a new token', async () => {
    const { supervisor, logs } = supervise();
    supervisor.start();
    const url = (await supervisor.waitReady(10_000))!;
    const before = { ...supervisor.status(), token: (await childEnv(url)).token };
    const exited = nextExit(supervisor);
    process.kill(before.pid!, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(await supervisor.waitExit(1, 0)).toBe(true);
    expect(await supervisor.waitReady(10_000)).toBe(url);
    expect(supervisor.status()).toMatchObject({ state: 'ready', generation: 2, restarts: 1, consecutive_failures: 0, port: before.port });
    expect(supervisor.status().last_exit).toMatchObject({ code: null, signal: 'SIGKILL' });
    expect((await childEnv(url)).token).not.toBe(before.token);
    expect(logs.find((l) => l.msg === 'runtime exited')).toMatchObject({ generation: 1, expected: false, level: 40 });
  });

  it('a project that does not load: its diagnostics are kept, and waitReady gives up after two failed starts', async () => {
    const diagnostics = [{ file: 'agent.json', line: 3, column: 5, field: 'skills', message: 'must be an array' }];
    const { supervisor } = supervise({ FAKE_MODE: 'diagnostics', FAKE_DIAGNOSTICS_LINE: formatDiagnosticsLine(diagnostics) });
    supervisor.start();
    await nextExit(supervisor);
    await nextExit(supervisor);
    expect(await supervisor.waitReady(10_000)).toBeNull();
    expect(supervisor.startDiagnostics()).toEqual(diagnostics);
    expect(supervisor.unavailableDetail()).toContain('the project is not valid:');
    expect(supervisor.status().consecutive_failures).toBeGreaterThanOrEqual(2);
  });

  it('a start that never prints its ready line is killed after the start timeout', async () => {
    const { supervisor } = supervise({ FAKE_MODE: 'silent' }, { startTimeoutMs: 200, backoffMs: [60_000] });
    supervisor.start();
    await nextExit(supervisor);
    expect(supervisor.status()).toMatchObject({ state: 'backoff', restarts: 1, last_exit: { signal: 'SIGKILL' } });
    expect(supervisor.unavailableDetail()).toBe('the runtime did not become ready in time');
  });

  it('applyChanges: a reload keeps the child, RELOAD_FAILED gives its diagnostics, a refused reload restarts', async () => {
    const ok = supervise({ FAKE_RELOAD: 'ok' }).supervisor;
    const failed = supervise({ FAKE_RELOAD: 'failed' }).supervisor;
    const refused = supervise({ FAKE_RELOAD: 'refused' });
    for (const s of [ok, failed, refused.supervisor]) s.start();
    await Promise.all([ok, failed, refused.supervisor].map((s) => s.waitReady(10_000)));

    expect(await ok.applyChanges()).toEqual({ applied: 'reload' });
    expect(ok.generation).toBe(1);
    expect(await failed.applyChanges()).toEqual({ diagnostics: [{ file: 'agent.json', line: 2, message: 'bad' }] });
    expect(failed.generation).toBe(1);
    expect(await refused.supervisor.applyChanges()).toEqual({ applied: 'restart' });
    expect(refused.supervisor.status()).toMatchObject({ state: 'ready', generation: 2, restarts: 0 });
    expect(refused.logs.find((l) => l.msg === 'runtime reload refused; restarting the runtime')).toMatchObject({ status: 404 });
    expect(refused.logs.find((l) => l.msg === 'runtime exited')).toMatchObject({ generation: 1, expected: true, level: 30 });
  });

  it('a child that stops answering /livez is killed and replaced', async () => {
    const { supervisor, logs } = supervise({}, { healthIntervalMs: 50, healthFailures: 2 });
    supervisor.start();
    const url = (await supervisor.waitReady(10_000))!;
    const exited = nextExit(supervisor);
    await fetch(`${url}hang`, { method: 'POST' });
    await exited;
    expect(await supervisor.waitReady(10_000)).toBe(url);
    expect(supervisor.generation).toBe(2);
    expect(logs.map((l) => l.msg)).toContain('runtime stopped answering /livez; killing it');
  });

  it('stop: the child is gone, the pid file removed, and nothing starts again', async () => {
    const { supervisor, dataDir } = supervise();
    supervisor.start();
    await supervisor.waitReady(10_000);
    const pid = supervisor.status().pid!;
    await supervisor.stop();
    expect(supervisor.status()).toMatchObject({ state: 'stopped', url: null, pid: null });
    expect(() => process.kill(pid, 0)).toThrow();
    expect(fs.existsSync(path.join(dataDir, 'runtime.pid'))).toBe(false);
    await supervisor.restart();
    await supervisor.stop();
    expect(supervisor.status().state).toBe('stopped');
    expect(await supervisor.waitReady(1_000)).toBeNull();
  });
});
