// The studio <-> runtime contract against the real runtime: a runtime child started as the
// studio starts it, whose real lines and replies are read with the shared schemas in STRICT
// mode (src/shared/runtime-contract.ts). A field one side adds, renames or retypes without
// the other fails here, not in front of a user.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAPTURE_PATH,
  controlHeaders,
  formatDiagnosticsLine,
  formatReadyLine,
  parseDiagnosticsLine,
  parseReadyLine,
  RESERVED_CAPTURE_KEY,
  RUNTIME_ENV,
  RUNTIME_PATHS,
  ReadyUrlSchema,
  StrictRuntimeSchemas as Strict,
  type CaptureBody,
} from '../../src/shared/runtime-contract.ts';
import { copyExample, REPO, tempDir } from './helpers/runtime.ts';

const TOKEN = 'drift-test-token';
const children: ChildProcess[] = [];
let dir = '';
let capture: http.Server;
const captured: unknown[] = [];
const arrivals = new EventTarget();

/** `agent-studio runtime` with the environment the studio gives its child; its stdout and
 * stderr lines as they come. */
function runtimeChild(captureUrl: string) {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'bin/agent-studio.mjs'), 'runtime', '--project', dir, '--host', '127.0.0.1', '--port', '0', '--data-dir', tempDir('rt-drift')],
    {
      env: {
        PATH: process.env.PATH,
        AGENT_ID: 'test-agent',
        SCRIPTED_DELAY_MS: '0',
        LOG_LEVEL: 'warn',
        [RUNTIME_ENV.captureUrl]: captureUrl,
        [RUNTIME_ENV.controlEnabled]: 'true',
        [RUNTIME_ENV.controlToken]: TOKEN,
        [RUNTIME_ENV.studioChild]: '1',
        [RUNTIME_ENV.studioPid]: String(process.pid),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr! }).on('line', (l) => stderr.push(l));
  // 'close': the process is gone and its output read to the end.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const ready = new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      if (parseReadyLine(line)) resolve(line);
    });
    void exited.then((code) => reject(new Error(`the runtime exited ${code} before its ready line: ${stderr.join('\n')}`)));
  });
  return { child, ready, exited, stderr };
}

const call = async (url: string, method = 'GET') => {
  const res = await fetch(url, { method, headers: controlHeaders(TOKEN) });
  return { status: res.status, body: (await res.json()) as unknown };
};

beforeAll(async () => {
  dir = copyExample('contract-drift');
  capture = http.createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      captured.push(JSON.parse(text));
      arrivals.dispatchEvent(new Event('body'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: 1 }));
    });
  });
  await new Promise<void>((resolve) => capture.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await new Promise<void>((resolve) => capture.close(() => resolve()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Resolves once a captured body holds an event named `name`. */
function capturedEvent(name: string): Promise<void> {
  const has = () => captured.some((b) => (b as CaptureBody).events?.some((e) => e.name === name));
  return new Promise((resolve) => {
    if (has()) return resolve();
    const check = () => {
      if (!has()) return;
      arrivals.removeEventListener('body', check);
      resolve();
    };
    arrivals.addEventListener('body', check);
  });
}

describe('studio <-> runtime contract (strict)', () => {
  it('the ready line, metadata, capture bodies, a reload and a failed reload, and the diagnostics line', async () => {
    const captureUrl = `http://127.0.0.1:${(capture.address() as AddressInfo).port}${CAPTURE_PATH}`;
    const rt = runtimeChild(captureUrl);
    const readyLine = await rt.ready;
    const base = parseReadyLine(readyLine)!;
    expect(ReadyUrlSchema.parse(base)).toBe(base);

    // registry metadata; the ready line names the agent the metadata does
    const meta = await call(`${base}${RUNTIME_PATHS.metadata}`);
    expect(meta.status).toBe(200);
    const metadata = Strict.MetadataReply.parse(meta.body).data;
    expect(metadata.input_contracts.length).toBeGreaterThan(0);
    expect(readyLine).toBe(formatReadyLine(metadata.agent, base));

    // capture: a Playground invocation's trace events, posted to the studio's endpoint
    const done = capturedEvent('invoke.end');
    const message = { kind: 'message', role: 'user', messageId: randomUUID(), parts: [{ kind: 'text', text: 'My invoice is wrong' }] };
    const rpc = { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message, metadata: { [RESERVED_CAPTURE_KEY]: { capture_token: 'tok-1' } } } };
    const sent = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rpc) });
    expect(sent.status).toBe(200);
    await done;
    for (const body of captured) expect(Strict.CaptureBody.parse(body).capture_token).toBe('tok-1');

    // a reload with a changed prompt
    fs.appendFileSync(path.join(dir, 'prompts/system.md'), '\nBe brief.\n');
    const reloaded = await call(`${base}${RUNTIME_PATHS.reload}`, 'POST');
    expect(reloaded.status).toBe(200);
    expect(Strict.ReloadReply.parse(reloaded.body).data.changed).toEqual([expect.objectContaining({ kind: 'prompt', change: 'modified' })]);

    // a reload of a broken manifest: 409, the previous generation keeps serving
    const manifest = path.join(dir, 'agent.json');
    fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace('"skills": [', '"skills": 3, "unused": ['));
    const failed = await call(`${base}${RUNTIME_PATHS.reload}`, 'POST');
    expect(failed.status).toBe(409);
    expect(Strict.ReloadFailedReply.parse(failed.body).error.diagnostics.length).toBeGreaterThan(0);
    rt.child.kill('SIGTERM');
    await rt.exited;

    // a child started on the broken project prints the diagnostics line and exits
    const broken = runtimeChild(captureUrl);
    broken.ready.catch(() => {});
    expect(await broken.exited).not.toBe(0);
    const line = broken.stderr.find((l) => parseDiagnosticsLine(l) !== null)!;
    const diagnostics = Strict.DiagnosticsLine.parse(JSON.parse(line.slice(line.indexOf(' ') + 1))).diagnostics;
    expect(diagnostics[0]).toMatchObject({ file: 'agent.json' });
    expect(formatDiagnosticsLine(diagnostics)).toBe(line);
  });
});
