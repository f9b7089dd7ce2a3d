// `agent-studio runtime` as a user runs it: a ready line with the URL, and a non-zero exit
// with a message that says what to fix for a bad project, a busy port or a bad flag.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { A2AClient } from '@a2a-js/sdk/client';
import { EXAMPLE, REPO, copyExample, sendParams, tempDir } from './helpers/runtime.ts';
import fs from 'node:fs';

const BIN = path.join(REPO, 'bin/agent-studio.mjs');

function run(args: string[], until?: RegExp, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, SCRIPTED_DELAY_MS: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = until && until.exec(stdout);
      if (m) resolve(m[1] ?? m[0]);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  ready.catch(() => undefined); // only awaited by tests that expect a start
  return { child, exited, ready, out: () => stdout, err: () => stderr };
}

describe('agent-studio runtime', () => {
  it('prints its base URL once it accepts requests and serves the official client', async () => {
    const p = run(['runtime', '--project', EXAMPLE, '--port', '0', '--data-dir', tempDir('cli')], /ready at (http:\/\/\S+)/, { AGENT_ID: 'cli-agent' });
    try {
      const url = await p.ready;
      expect(p.out().trim().split('\n')).toHaveLength(1);
      const client = await A2AClient.fromCardUrl(`${url}.well-known/agent-card.json`);
      const res = (await client.sendMessage(sendParams('How do I reset my password?'))) as any;
      expect(res.result.status.state).toBe('completed');
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it('says after the ready line that thread management is off without AGENT_ID (the README command as given)', async () => {
    const p = run(['runtime', '--project', EXAMPLE, '--port', '0', '--data-dir', tempDir('cli')], /ready at (http:\/\/\S+)/, { AGENT_ID: '' });
    try {
      const url = await p.ready;
      // one write: the note is there when the ready line is
      const lines = p.out().trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/^Thread management is off, the \/api\/v1\/memory\/threads endpoints answer 409 AGENT_ID_REQUIRED: AGENT_ID is not set.*\.env/);
      const res = await fetch(`${url}api/v1/memory/threads`);
      expect(res.status).toBe(409);
      expect(((await res.json()) as any).error.message).toBe(lines[1].slice(lines[1].indexOf('AGENT_ID is not set')));
    } finally {
      p.child.kill('SIGTERM');
      await p.exited;
    }
  });

  it('exits non-zero naming the file and field of an invalid project', async () => {
    const dir = copyExample('cli-bad');
    const file = path.join(dir, 'agent.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"skills": [', '"skills": 3, "x": ['));
    const p = run(['runtime', '--project', dir, '--port', '0']);
    expect(await p.exited).toBe(1);
    expect(p.err()).toMatch(/agent\.json:\d+:\d+ \[skills\]/);
  });

  it('exits non-zero when the port is busy', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      const p = run(['runtime', '--project', EXAMPLE, '--port', String(port), '--data-dir', tempDir('cli')]);
      expect(await p.exited).toBe(1);
      expect(p.err()).toContain(`port ${port}`);
      expect(p.err()).toMatch(/--port/);
    } finally {
      blocker.close();
    }
  });

  it('exits 2 with usage on a bad flag or a missing project', async () => {
    const bad = run(['runtime', '--project', EXAMPLE, '--prot', '1']);
    expect(await bad.exited).toBe(2);
    expect(bad.err()).toMatch(/--prot/);
    const port = run(['runtime', '--project', EXAMPLE, '--port', 'abc']);
    expect(await port.exited).toBe(2);
    expect(port.err()).toMatch(/--port must be an integer/);
    const none = run(['runtime']);
    expect(await none.exited).toBe(2);
    expect(none.err()).toMatch(/--project/);
  });

  it('exits 1 with the one-line settings error, not a stack, for a bad LOG_LEVEL or POSTGRES_DSN (docs/deployment.md)', async () => {
    const level = run(['runtime', '--project', EXAMPLE, '--port', '0', '--data-dir', tempDir('cli')], undefined, { LOG_LEVEL: 'verbose' });
    expect(await level.exited).toBe(1);
    expect(level.err()).toBe("agent-studio runtime: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got 'verbose'\n");
    const dsn = run(['runtime', '--project', EXAMPLE, '--port', '0', '--data-dir', tempDir('cli')], undefined, { POSTGRES_DSN: 'not a url' });
    expect(await dsn.exited).toBe(1);
    expect(dsn.err()).toMatch(/^agent-studio runtime: POSTGRES_DSN must be a URL such as postgresql:\/\/user:password@host:5432\/database, got 'not a url'\n$/);
  });

  it('--check-config prints the effective settings with their sources, secrets masked, and exits 0; a bad one exits 1', async () => {
    const dir = copyExample('cli-check');
    fs.writeFileSync(path.join(dir, '.env'), 'AGENT_ID=from-file\nNATS_TOKEN=s3cr3t-token\n');
    const ok = run(['runtime', '--check-config', dir], undefined, { LOG_LEVEL: 'debug', POSTGRES_DSN: 'postgresql://app:hunter2@db/x' });
    expect(await ok.exited).toBe(0);
    const lines = ok.out().split('\n');
    expect(lines).toContain('AGENT_ID=from-file  # .env');
    expect(lines).toContain('LOG_LEVEL=debug  # environment');
    expect(lines).toContain('SHUTDOWN_GRACE_MS=25000  # default');
    expect(lines).toContain('POSTGRES_DSN=postgresql://app:***@db/x  # environment');
    expect(lines).toContain('NATS_TOKEN=*** (12 chars)  # .env');
    expect(ok.out()).not.toMatch(/hunter2|s3cr3t/);
    const bad = run(['runtime', '--check-config', dir], undefined, { TRACE_SINKS: 'nats', TRACE_NATS_MAX_AGE: 'a week' });
    expect(await bad.exited).toBe(1);
    expect(bad.err()).toMatch(/^agent-studio runtime: TRACE_NATS_MAX_AGE must be a duration/);
  });

  it('prints its usage, with the defaults, for --help and exits 0', async () => {
    const help = run(['runtime', '--help']);
    expect(await help.exited).toBe(0);
    expect(help.out()).toMatch(/runtime --project DIR/);
    expect(help.out()).toMatch(/DIR\/\.agent-studio\/runtime/);
  });
});
