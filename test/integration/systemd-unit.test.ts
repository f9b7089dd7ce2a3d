// The systemd unit we ship (resources/systemd/agent-runtime.service, docs/operations.md) starts
// a runtime that serves and stops cleanly: its ExecStart, Environment= and EnvironmentFile=
// are read from the file, the install paths swapped for this checkout and temporary folders,
// and the command run as systemd would run it (no systemd on these machines): ready on
// /readyz, then SIGTERM (KillSignal=) ends it with exit 0, which Restart=on-failure leaves
// stopped. The project is a copy of the example outside the repository with only a
// package.json added: what docs/deployment.md says a deployed project needs.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { expect, it } from 'vitest';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { EXAMPLE, REPO, tempDir } from './helpers/runtime.ts';

const UNIT = path.join(REPO, 'resources/systemd/agent-runtime.service');

/** The [Service] settings of a unit file: each key's values in order (systemd repeats keys). */
function serviceSettings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) {
      section = head[1];
      continue;
    }
    const eq = line.indexOf('=');
    if (section !== 'Service' || eq < 0) continue;
    const key = line.slice(0, eq).trim();
    out.set(key, [...(out.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return out;
}

/** KEY=VALUE lines (Environment=, an EnvironmentFile) as an object. */
const assignments = (lines: string[]) => Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

it('the shipped unit starts a runtime that gets ready, and stops it with SIGTERM and exit 0', async () => {
  const unit = serviceSettings(fs.readFileSync(UNIT, 'utf8'));
  expect(unit.get('KillSignal')).toEqual(['SIGTERM']);
  expect(unit.get('Restart')).toEqual(['on-failure']);
  const graceS = Number(assignments(unit.get('Environment') ?? []).SHUTDOWN_GRACE_MS) / 1000;
  expect(Number(unit.get('TimeoutStopSec')![0])).toBeGreaterThan(graceS + 2); // the forced end and closing fit

  const project = path.join(tempDir('srv-agent'), 'agent');
  fs.cpSync(EXAMPLE, project, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });
  fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'support-desk', private: true, type: 'module' }));
  const state = tempDir('var-lib-agent-runtime');
  const ops = newKey('ops');
  const envFile = path.join(tempDir('etc-agent-runtime'), 'agent-runtime.env');
  fs.writeFileSync(envFile, `AGENT_ID=support-desk\nA2A_API_KEYS=${newKey('alice').entry}\nMANAGEMENT_API_KEYS=${ops.entry}\nSCRIPTED_DELAY_MS=0\n`);
  expect(unit.get('EnvironmentFile')).toEqual(['/etc/agent-runtime/agent-runtime.env']);

  // Install paths -> this checkout and the temporary folders; a free loopback port.
  const swaps: [string, string][] = [
    ['/usr/bin/node', process.execPath],
    ['/opt/agent-studio/lib/node_modules/agent-studio', REPO],
    ['/srv/agent', project],
    ['/var/lib/agent-runtime', state],
  ];
  const [command, ...args] = unit
    .get('ExecStart')![0]
    .split(/\s+/)
    .map((word) => swaps.reduce((w, [from, to]) => (w.startsWith(from) ? to + w.slice(from.length) : w), word));
  const at = (flag: string) => args.indexOf(flag) + 1;
  expect(args[at('--host')]).toBe('0.0.0.0');
  args[at('--host')] = '127.0.0.1';
  args[at('--port')] = '0';
  const env = { PATH: process.env.PATH, ...assignments(unit.get('Environment')!), ...assignments(fs.readFileSync(envFile, 'utf8').trim().split('\n')) };
  const child = spawn(command, args, { cwd: unit.get('WorkingDirectory')![0].replace('/srv/agent', project), env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logs: { msg?: string }[] = [];
  readline.createInterface({ input: child.stderr }).on('line', (l) => logs.push(JSON.parse(l)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout }).on('line', (l) => {
        const m = / ready at (http:\/\/\S+\/)$/.exec(l);
        if (m) resolve(m[1]);
      });
      void exited.then((code) => reject(new Error(`exited ${code}: ${JSON.stringify(logs)}`)));
    });
    const ready = await fetch(`${url}readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready' });
    expect((await fetch(`${url}metrics`, { headers: { authorization: `Bearer ${ops.key}` } })).status).toBe(200);
    expect(fs.existsSync(path.join(state, 'memory.sqlite'))).toBe(true); // the store in StateDirectory=
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs.map((l) => l.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^runtime started: /), 'runtime stopped']));
  } finally {
    child.kill('SIGKILL');
  }
});
