// "Your first agent in five minutes" (docs/project-format.md), followed literally from the
// packed tarball, in a temp folder outside this repo: install agent-studio globally (into a
// temp prefix), `agent-studio init my-agent`, `npm install`, `agent-studio serve` with a run
// through the Playground API, and `agent-studio runtime` answering the official A2A client.
//
// One shortcut, for CI time: the install skips install scripts and reuses this checkout's
// compiled better-sqlite3 (same pinned version, same Node), where a clean machine compiles it
// (measured: the whole global install 1 min 43 s here, compile included; docs/performance.md).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import type { Task } from '@a2a-js/sdk';
import { ensureRendererBuilt } from '../../src/main/studio/renderer-build.ts';
import { REPO } from './helpers/runtime.ts';

const run = promisify(execFile);
const NPM_FLAGS = ['--prefer-offline', '--no-audit', '--no-fund'];

/** Starts a long-running command and resolves with its first stdout line. */
function startCommand(bin: string, args: string[], cwd: string): Promise<{ child: ChildProcess; line: string; stderr: () => string }> {
  const child = spawn(process.execPath, [bin, ...args], { cwd, env: { ...process.env, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve({ child, line: out.split('\n')[0], stderr: () => err });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code} before its ready line:\n${err}`)));
  });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

describe('your own agent, from the packed tarball', () => {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'own-agent-')));
  const prefix = path.join(root, 'global');
  const bin = path.join(prefix, 'lib', 'node_modules', 'agent-studio', 'bin', 'agent-studio.mjs');
  const project = path.join(root, 'my-agent');
  const teammate = path.join(root, 'teammate', 'my-agent');
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    // npm pack: its prepack builds the renderer if this checkout has not (the package ships it built).
    await ensureRendererBuilt((line) => console.log(line));
    const packed = await run('npm', ['pack', '--pack-destination', root, '--json'], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
    const tarball = path.join(root, (JSON.parse(packed.stdout) as { filename: string }[])[0].filename);
    expect(fs.existsSync(path.join(REPO, 'npm-shrinkwrap.json'))).toBe(false);
    expect(fs.existsSync(path.join(REPO, 'resources/sdk-types'))).toBe(false);
    // npm install -g ./agent-studio-<version>.tgz, into a temp prefix.
    await run('npm', ['install', '-g', '--prefix', prefix, '--ignore-scripts', ...NPM_FLAGS, tarball], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
    const compiled = path.join(REPO, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node');
    const target = path.join(prefix, 'lib/node_modules/agent-studio/node_modules/better-sqlite3/build/Release');
    fs.mkdirSync(target, { recursive: true });
    fs.copyFileSync(compiled, path.join(target, 'better_sqlite3.node'));
  }, 600_000);

  afterAll(async () => {
    for (const c of children) await stop(c);
    // A global install and two projects' node_modules: deleting them takes a while under load.
    const started = Date.now();
    fs.rmSync(root, { recursive: true, force: true });
    console.log(`[own-agent] removed the temp folder in ${Date.now() - started} ms`);
  }, 300_000);

  it('ships the renderer built, the SDK, the templates and the pinned dependency tree, not the tests', () => {
    const pkg = path.join(prefix, 'lib/node_modules/agent-studio');
    expect(fs.existsSync(path.join(pkg, 'out/renderer/index.html'))).toBe(true);
    expect(fs.existsSync(path.join(pkg, 'src/sdk/index.ts'))).toBe(true);
    expect(fs.existsSync(path.join(pkg, 'resources/templates/minimal/agent.json'))).toBe(true);
    expect(fs.existsSync(path.join(pkg, 'npm-shrinkwrap.json'))).toBe(true);
    // The SDK's declarations, emitted at pack time (an installed package cannot emit them).
    expect(fs.existsSync(path.join(pkg, 'resources/sdk-types/index.d.ts'))).toBe(true);
    expect(fs.existsSync(path.join(pkg, 'src/renderer'))).toBe(false);
    expect(fs.readdirSync(path.join(pkg, 'src/main/runtime')).some((f) => f.endsWith('.test.ts'))).toBe(false);
    expect(fs.existsSync(path.join(pkg, 'node_modules/electron'))).toBe(false);
  });

  it('init creates a project, refuses a non-empty folder, and the project installs', async () => {
    const created = await run(process.execPath, [bin, 'init', 'my-agent'], { cwd: root });
    expect(created.stdout).toContain("Created the agent 'my-agent' (template minimal) in my-agent");
    expect(created.stdout).toContain('agent-studio serve --project .');
    const files = [
      'agent.json',
      'package.json',
      'tsconfig.json',
      '.env.example',
      '.gitignore',
      'README.md',
      'src/graph.ts',
      'src/evaluators.ts',
      'contracts/request.schema.json',
      'types/agent-studio-sdk/index.d.ts',
    ];
    for (const f of files) expect(fs.existsSync(path.join(project, f)), f).toBe(true);
    const pkg = JSON.parse(fs.readFileSync(path.join(project, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ type: 'module', dependencies: { '@langchain/langgraph': '1.3.7', '@langchain/core': '1.2.13' } });
    expect(JSON.parse(fs.readFileSync(path.join(project, 'agent.json'), 'utf8')).inputContracts[0].schema).toBe('my-agent.request/1');

    const again = await run(process.execPath, [bin, 'init', 'my-agent'], { cwd: root }).catch((e: { code: number; stderr: string }) => e);
    expect(again).toMatchObject({ code: 1 });
    expect((again as { stderr: string }).stderr).toContain(
      'is not empty (.env.example, .gitignore, README.md, agent.json, contracts, …): choose an empty or new folder, or pass --force',
    );

    // No dependency on agent-studio (not in a registry): the runtime brings the SDK, and its
    // types are in the project for the editor and tsc (docs/decisions.md D-45).
    expect(JSON.stringify(pkg)).not.toContain('agent-studio"');
    expect(fs.readFileSync(path.join(project, 'types/agent-studio-sdk/index.d.ts'), 'utf8')).toContain('export * from');
    await run('npm', ['install', ...NPM_FLAGS], { cwd: project, maxBuffer: 16 * 1024 * 1024 });
  }, 300_000);

  it("a teammate's clone, in a folder that never saw the tarball, installs, type-checks and runs", async () => {
    // What git clone gives a teammate: the project's files, without node_modules.
    fs.cpSync(project, teammate, { recursive: true, filter: (src) => !src.includes(`${path.sep}node_modules`) });
    await run('npm', ['install', ...NPM_FLAGS], { cwd: teammate, maxBuffer: 16 * 1024 * 1024 });
    const lock = fs.readFileSync(path.join(teammate, 'package-lock.json'), 'utf8');
    expect(lock).not.toContain('agent-studio');
    expect(lock).not.toContain(prefix);
    const checked = await run('npx', ['tsc', '--noEmit'], { cwd: teammate }).catch((e: { stdout: string }) => e);
    expect(checked.stdout).toBe('');
    // A type error in the SDK's use is caught, so the types are real, not `any`.
    fs.writeFileSync(path.join(teammate, 'src/typo.ts'), "import { AgentState } from 'agent-studio/sdk';\nexport const n: number = AgentState;\n");
    const bad = await run('npx', ['tsc', '--noEmit'], { cwd: teammate }).catch((e: { stdout: string }) => e);
    expect((bad as { stdout: string }).stdout).toContain('src/typo.ts(2,14): error TS2322');
    fs.rmSync(path.join(teammate, 'src/typo.ts'));
    const rt = await startCommand(bin, ['runtime', '--project', '.', '--port', '0', '--data-dir', path.join(root, 'teammate-data')], teammate);
    children.push(rt.child);
    const url = /^Agent runtime for my-agent ready at (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(rt.line)?.[1];
    expect(url, rt.line).toBeDefined();
    const client = await A2AClient.fromCardUrl(`${url}.well-known/agent-card.json`);
    const answer = await client.sendMessage({
      message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'hello' }] },
    });
    expect((answer as { result: Task }).result.status.state).toBe('completed');
    await stop(rt.child);
  }, 300_000);

  it('agent-studio serve runs it offline: the studio page, and a run answered with text, a DataPart and a score', async () => {
    const serve = await startCommand(bin, ['serve', '--project', '.', '--port', '0', '--data-dir', path.join(root, 'studio-data')], project);
    children.push(serve.child);
    const url = /^Agent Studio for my-agent ready at (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(serve.line)?.[1];
    expect(url, serve.line).toBeDefined();
    const page = await fetch(url!);
    expect(await page.text()).toContain('<div id="root"');
    const api = `${url}api/playground/v1`;
    const post = async (p: string, body: unknown): Promise<any> =>
      (await fetch(`${api}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json();
    const session = await post('/sessions', {});
    const created = await post(`/sessions/${session.session_id}/runs`, {
      parts: [
        { kind: 'text', text: 'hello' },
        { kind: 'data', data: { schema: 'my-agent.request/1', topic: 'a late parcel', urgency: 'high' } },
      ],
    });
    expect(created.run_id, JSON.stringify(created)).toBeDefined();
    // The run goes through the runtime child; its event stream ends when the run does.
    const events = await fetch(`${api}/runs/${created.run_id}/events`, { headers: { accept: 'text/event-stream' } });
    await events.text();
    const detail = (await (await fetch(`${api}/runs/${created.run_id}`)).json()) as {
      status: string;
      output_parts: unknown[];
      scores: { evaluator: string; score: number }[];
    };
    expect(detail.status, serve.stderr()).toBe('completed');
    expect(detail.output_parts).toContainEqual({ kind: 'data', data: { schema: 'my-agent.answer/1', topic: 'a late parcel', urgency: 'high' } });
    expect(JSON.stringify(detail.output_parts)).toContain('You asked about \\"a late parcel\\" (urgency: high)');
    expect(detail.scores).toContainEqual(expect.objectContaining({ evaluator: 'answered', score: 1 }));
    await stop(serve.child);
  }, 120_000);

  it('agent-studio runtime serves it over A2A to the official client', async () => {
    const rt = await startCommand(bin, ['runtime', '--project', '.', '--port', '0', '--data-dir', path.join(root, 'runtime-data')], project);
    children.push(rt.child);
    const url = /^Agent runtime for my-agent ready at (http:\/\/127\.0\.0\.1:\d+\/)$/.exec(rt.line)?.[1];
    expect(url, rt.line).toBeDefined();
    const client = await A2AClient.fromCardUrl(`${url}.well-known/agent-card.json`);
    const answer = await client.sendMessage({
      message: { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'What can you do?' }] },
    });
    expect('error' in answer ? answer.error : null).toBeNull();
    const task = (answer as { result: Task }).result;
    expect(task.status.state).toBe('completed');
    const parts = task.artifacts?.[0]?.parts ?? [];
    expect(parts[0]).toMatchObject({ kind: 'text', text: expect.stringContaining('You asked about "What can you do?"') });
    expect(parts[1]).toMatchObject({ kind: 'data', data: { schema: 'my-agent.answer/1', topic: 'What can you do?', urgency: 'normal' } });
    await stop(rt.child);
  }, 60_000);
});
