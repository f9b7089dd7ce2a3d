// The connection profile over real HTTP (docs/studio-api.md, "Connection profile"): the headless
// studio on a copy of the example whose .env sets A2A_API_KEYS; the Playground runs as the studio
// (control token), as a caller with X-API-Key or Authorization: Bearer, and fails clearly with a
// refused key. The value never comes back from the API, never reaches a bundle or the studio's
// log, and its file is 0600.
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunAccepted, RunDetail } from '../../src/shared/playground.ts';
import { newKey } from '../../src/main/runtime/auth/api-keys.ts';
import { call, copyExample, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

const alice = newKey('alice');
const wrong = newKey('mallory').key;
let dir: string;
let t: TestStudio;
let logText = '';
const logs = new Writable({
  write(chunk, _enc, done) {
    logText += String(chunk);
    done();
  },
});
const sessions: string[] = [];
const connection = (method: string, body?: unknown) => call(t.url.replace(/\/$/, ''), method, '/api/runtime/connection', body);

async function run(): Promise<RunDetail> {
  const session = (await t.call('POST', '/sessions', {})).body.session_id as string;
  sessions.push(session);
  const accepted = await t.call<RunAccepted>('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: 'How do I reset my password?' }] });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  return waitForRun(t, accepted.body.run_id);
}

beforeAll(async () => {
  dir = copyExample('connection-profile');
  fs.writeFileSync(path.join(dir, '.env'), `A2A_API_KEYS=${alice.entry}\nMANAGEMENT_API_KEYS=${newKey('ops').entry}\n`);
  t = await startTestStudio({ projectDir: dir, logger: pino({ level: 'trace' }, logs) });
  await t.studio.runtime.waitReady(60_000);
});

afterAll(async () => {
  await t?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('a studio whose project requires caller keys', () => {
  it('runs as the studio (control token) while no profile is set', async () => {
    expect((await connection('GET')).body).toEqual({ header: null, hint: null });
    expect((await run()).status).toBe('completed');
  });

  it('runs as a caller with an X-API-Key profile; GET and PUT answer a hint, never the value; the file is 0600', async () => {
    const put = await connection('PUT', { header: 'X-API-Key', value: alice.key });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    const hint = `…${alice.key.slice(-4)}`;
    expect(put.body).toEqual({ header: 'X-API-Key', hint });
    const got = await connection('GET');
    expect(got.body).toEqual({ header: 'X-API-Key', hint });
    expect(JSON.stringify(got.body)).not.toContain(alice.key);
    const file = path.join(t.dataDir, 'connection.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    // X-API-Key alone: had the control token's Authorization gone too, the runtime would refuse both.
    const r = await run();
    expect(r.status, JSON.stringify(r.output_parts)).toBe('completed');
  });

  it('fails a run with a refused key and says the profile credential was refused', async () => {
    expect((await connection('PUT', { header: 'X-API-Key', value: wrong })).status).toBe(200);
    const r = await run();
    expect(r.status).toBe('failed');
    expect(r.reason).toBe('runtime_error');
    const error = r.output_parts.find((p) => p.kind === 'error');
    expect(error).toMatchObject({ kind: 'error', code: 'credential_refused' });
    expect(error && 'message' in error ? error.message : '').toMatch(/refused the connection profile's credential/);
  });

  it('runs with Authorization: Bearer <key>, replacing the control token', async () => {
    expect((await connection('PUT', { header: 'Authorization', value: `Bearer ${alice.key}` })).status).toBe(200);
    expect((await connection('GET')).body).toEqual({ header: 'Authorization', hint: `…${alice.key.slice(-4)}` });
    const r = await run();
    expect(r.status, JSON.stringify(r.output_parts)).toBe('completed');
  });

  it('refuses bad profiles in the detail shape, without echoing the value', async () => {
    const secret = `${alice.key}-not-saved`;
    const cases: [unknown, RegExp][] = [
      [{ header: 'Host', value: secret }, /header/],
      [{ header: 'Cookie', value: secret }, /header/],
      [{ header: 'Content-Length', value: secret }, /header/],
      [{ header: 'X API Key', value: secret }, /HTTP token/],
      [{ header: 'X-API-Key', value: '   ' }, /give the value/],
      [{ header: 'X-API-Key', value: `${secret}\r\nX-Evil: 1` }, /line breaks/],
      [{ header: 'X-API-Key', value: 'k'.repeat(8 * 1024 + 1) }, /8 KiB/],
      [{ header: 'X-API-Key', value: secret, extra: 1 }, /extra|Unrecognized/i],
      [{ header: 'X-API-Key' }, /value/],
    ];
    for (const [body, message] of cases) {
      const res = await connection('PUT', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.detail.error).toBe('invalid_request');
      expect(res.body.detail.message).toMatch(message);
      expect(JSON.stringify(res.body)).not.toContain(secret);
    }
    // A body that is not JSON is refused without quoting it.
    const broken = await connection('PUT', `{"header": "X-API-Key", "value": "${secret}`);
    expect(broken.status).toBe(400);
    expect(JSON.stringify(broken.body)).not.toContain(secret);
    expect((await connection('POST', { header: 'X-API-Key', value: secret })).status).toBe(405);
    // The profile saved before is unchanged.
    expect((await connection('GET')).body.header).toBe('Authorization');
  });

  it('keeps the value out of exported bundles and the studio log; DELETE goes back to the studio', async () => {
    const res = await fetch(`${t.api}/bundles/export`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_ids: sessions }),
    });
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(0);
    for (const secret of [alice.key, wrong]) {
      expect(bytes.includes(Buffer.from(secret))).toBe(false);
      expect(logText).not.toContain(secret);
    }
    // The log did capture the runs (it is the studio's real output).
    expect(logText).toContain('run ended');
    const db = fs.readFileSync(path.join(t.dataDir, 'playground.sqlite'));
    expect(db.includes(Buffer.from(alice.key))).toBe(false);

    const cleared = await connection('DELETE');
    expect(cleared.body).toEqual({ header: null, hint: null });
    expect(fs.readFileSync(path.join(t.dataDir, 'connection.json'), 'utf8')).not.toContain(alice.key);
    expect((await run()).status).toBe('completed');
  });
});
