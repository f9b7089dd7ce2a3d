// A runtime bound to a non-loopback address does not start open (docs/deployment.md): it needs
// a caller and an operator credential, or --insecure. And `agent-studio runtime keys new` makes
// a key that such a runtime accepts.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { RuntimeStartError, startRuntime } from '../../src/main/runtime/start.ts';
import { EXAMPLE, REPO, sendParams, tempDir } from './helpers/runtime.ts';

const BIN = path.join(REPO, 'bin/agent-studio.mjs');
const caller = newKey('alice');
const operator = newKey('ops');

/** startRuntime on 0.0.0.0 (any free port), its log lines collected. */
async function startOnAllInterfaces(env: Record<string, string>, insecure = false) {
  const lines: string[] = [];
  const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, cb) => (lines.push(String(chunk)), cb()) }));
  const rt = await startRuntime({
    projectDir: EXAMPLE,
    host: '0.0.0.0',
    port: 0,
    dataDir: tempDir('rt-bind'),
    env: { PATH: process.env.PATH, SCRIPTED_DELAY_MS: '0', ...env },
    logger,
    insecure,
  });
  return { rt, lines };
}

function cli(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, SCRIPTED_DELAY_MS: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = / ready at (http:\/\/\S+\/)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${err}`)));
  });
  ready.catch(() => undefined);
  return { child, exited, ready, out: () => out, err: () => err };
}

describe('starting on a non-loopback address', () => {
  it('refuses without credentials, naming each missing one', async () => {
    const none = startOnAllInterfaces({});
    await expect(none).rejects.toBeInstanceOf(RuntimeStartError);
    await expect(none).rejects.toThrow(
      /refusing to listen on 0\.0\.0\.0.*no caller credential.*A2A_API_KEYS.*and no operator credential.*MANAGEMENT_API_KEYS.*--insecure/,
    );
    await expect(startOnAllInterfaces({ A2A_API_KEYS: caller.entry })).rejects.toThrow(/with no operator credential for \/api\/v1/);
    await expect(startOnAllInterfaces({ MANAGEMENT_API_KEYS: operator.entry })).rejects.toThrow(
      /with no caller credential for POST \/ \(set A2A_API_KEYS[^;]*\); make keys/,
    );
  });

  it('starts with both credentials, and then asks for them', async () => {
    const { rt, lines } = await startOnAllInterfaces({ A2A_API_KEYS: caller.entry, MANAGEMENT_API_KEYS: operator.entry });
    try {
      expect(lines.join('')).not.toMatch(/--insecure/);
      expect((await fetch(rt.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
      expect((await fetch(`${rt.url}api/v1/status`)).status).toBe(401);
      expect((await fetch(`${rt.url}api/v1/status`, { headers: { authorization: `Bearer ${operator.key}` } })).status).toBe(200);
      // The log says why a credential was refused, never the credential.
      const stolen = newKey('mallory').key;
      expect((await fetch(rt.url, { method: 'POST', headers: { 'x-api-key': stolen, 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
      expect((await fetch(`${rt.url}api/v1/status`, { headers: { authorization: `Bearer ${caller.key}` } })).status).toBe(403);
      const log = lines.join('');
      expect(log).toMatch(/"reason":"unknown API key \(X-API-Key\)".*"msg":"JSON-RPC request refused: not authenticated"/);
      expect(log).toMatch(/"principal":"alice".*"msg":"management request refused: a caller credential, not an operator one"/);
      for (const secret of [stolen, caller.key, operator.key]) expect(log).not.toContain(secret);
    } finally {
      await rt.close();
    }
  });

  it('starts open with --insecure or RUNTIME_INSECURE=true, and logs a warning', async () => {
    for (const [env, flag] of [[{}, true] as const, [{ RUNTIME_INSECURE: 'true' }, false] as const]) {
      const { rt, lines } = await startOnAllInterfaces(env, flag);
      try {
        expect(lines.join('')).toMatch(/--insecure: serving 0\.0\.0\.0 without caller and operator authentication/);
        expect((await fetch(`${rt.url}api/v1/status`)).status).toBe(200);
      } finally {
        await rt.close();
      }
    }
  });
});

describe('agent-studio runtime keys new', () => {
  it('prints a fresh key once and the NAME:sha256hex entry a deployed runtime then accepts', async () => {
    const made = cli(['runtime', 'keys', 'new', 'alice']);
    expect(await made.exited).toBe(0);
    const [, key, , entry] = made
      .out()
      .trim()
      .split('\n')
      .map((l) => l.trim());
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(entry).toBe(`alice:${createHash('sha256').update(key!).digest('hex')}`);
    const other = cli(['runtime', 'keys', 'new', 'alice']);
    await other.exited;
    expect(other.out()).not.toContain(key!);

    const refused = cli(['runtime', '--project', EXAMPLE, '--host', '0.0.0.0', '--port', '0', '--data-dir', tempDir('rt-cli')]);
    expect(await refused.exited).toBe(1);
    expect(refused.err()).toMatch(/^agent-studio runtime: refusing to listen on 0\.0\.0\.0/);

    const served = cli(['runtime', '--project', EXAMPLE, '--host', '0.0.0.0', '--port', '0', '--data-dir', tempDir('rt-cli')], {
      A2A_API_KEYS: entry!,
      MANAGEMENT_API_KEYS: operator.entry,
    });
    try {
      const url = await served.ready;
      const call = (headers: Record<string, string>) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'message/send', params: sendParams('hi') }),
        });
      expect((await call({})).status).toBe(401);
      expect((await call({ 'x-api-key': key! })).status).toBe(200);
    } finally {
      served.child.kill('SIGTERM');
      await served.exited;
    }
  });

  it('refuses a name the settings would refuse, and a missing name', async () => {
    for (const args of [['new', 'a:b'], ['new'], ['old', 'alice']]) {
      const p = cli(['runtime', 'keys', ...args]);
      expect(await p.exited).toBe(2);
      expect(p.out()).toBe('');
    }
  });
});
