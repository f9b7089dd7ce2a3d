// A studio's runtime child stops on its own once the studio process is gone, including a
// studio that died while the child was still starting (before it could watch its parent):
// no runtime is left serving with nobody to stop it. The studio is stood in for by a
// process whose pid the child is given, as the studio gives its own (AGENT_STUDIO_PID).
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLE, REPO, tempDir } from './helpers/runtime.ts';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** A process standing in for the studio: it runs until killed. */
function fakeStudio(): ChildProcess {
  const p = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  children.push(p);
  return p;
}

const exited = (p: ChildProcess) =>
  new Promise<number | null>((resolve) => (p.exitCode !== null || p.signalCode !== null ? resolve(p.exitCode) : p.once('exit', (code) => resolve(code))));

/** `agent-studio runtime` as the studio starts it (AGENT_STUDIO_CHILD), told the studio's pid. */
function runtimeChild(studioPid: number): { child: ChildProcess; ready: Promise<string> } {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', EXAMPLE, '--port', '0', '--data-dir', tempDir('rt-child')],
    {
      env: { PATH: process.env.PATH, AGENT_ID: 'test-agent', LOG_LEVEL: 'warn', AGENT_STUDIO_CHILD: '1', AGENT_STUDIO_PID: String(studioPid) },
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  children.push(child);
  let out = '';
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const m = / ready at (http:\/\/\S+\/)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${code} before its ready line`)));
  });
  return { child, ready };
}

describe("a studio's runtime child", () => {
  it('stops when the studio is killed while it serves', async () => {
    const studio = fakeStudio();
    const { child, ready } = runtimeChild(studio.pid!);
    const url = await ready;
    expect((await fetch(`${url}healthz`)).status).toBe(200);
    studio.kill('SIGKILL');
    expect(await exited(child)).toBe(0);
  });

  it('stops at once when the studio died while it was starting', async () => {
    const studio = fakeStudio();
    const { child, ready } = runtimeChild(studio.pid!);
    studio.kill('SIGKILL');
    await exited(studio);
    // It may or may not get as far as its ready line; either way it ends by itself.
    ready.catch(() => {});
    expect(await exited(child)).toBe(0);
  });
});
