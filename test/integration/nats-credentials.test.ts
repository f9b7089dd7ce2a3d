// The runtime on NATS servers that require credentials (docs/deployment.md, "The NATS
// connection"): each kind (user and password, token, NKey, a creds file in operator mode, TLS
// with a client certificate) against a private nats-server configured for it; the trace sink
// stores a request's events and the registry subscription is up. A wrong password is a logged
// failure naming the cause, and no secret shows in the log or GET /api/v1/status.
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '@a2a-js/sdk';
import { sendParams, startTestRuntime, tempDir, type TestRuntime } from './helpers/runtime.ts';
import { startNats, type TestNats } from './helpers/nats.ts';
import { certificates, nkeyUser, operatorSetup } from './helpers/nats-credentials.ts';
import { waitFor } from './helpers/playground-studio.ts';

async function status(rt: TestRuntime): Promise<Record<string, any>> {
  return ((await (await fetch(`${rt.url}api/v1/status`)).json()) as { data: Record<string, any> }).data;
}

const PASSWORD = `pw-${crypto.randomBytes(12).toString('hex')}`;
const TOKEN = `tok-${crypto.randomBytes(12).toString('hex')}`;

describe('the runtime on NATS servers that require credentials', () => {
  const dir = tempDir('nats-creds');
  const nkey = nkeyUser();
  const operator = operatorSetup(dir);
  const certs = certificates(dir);
  const servers: Record<string, TestNats> = {};

  beforeAll(async () => {
    servers.users = await startNats({ config: `authorization { users: [ { user: rt, password: "${PASSWORD}" }, { nkey: ${nkey.publicKey} } ] }\n` });
    servers.token = await startNats({ config: `authorization { token: "${TOKEN}" }\n` });
    servers.operator = await startNats({ config: operator.config });
    if (certs)
      servers.tls = await startNats({
        config: `tls { cert_file: "${certs.serverCert}", key_file: "${certs.serverKey}", ca_file: "${certs.ca}", verify: true }\n`,
      });
    else console.warn('nats-credentials.test.ts: openssl not found, the TLS case is skipped');
  });
  afterAll(async () => {
    for (const s of Object.values(servers)) await s.stop();
  });

  const cases: [string, 'users' | 'token' | 'operator' | 'tls', () => Record<string, string>, string][] = [
    ['user and password', 'users', () => ({ NATS_USER: 'rt', NATS_PASSWORD: PASSWORD }), 'user-password'],
    ['token', 'token', () => ({ NATS_TOKEN: TOKEN }), 'token'],
    ['NKey seed', 'users', () => ({ NATS_NKEY_SEED: nkey.seed }), 'nkey'],
    ['creds file (operator mode)', 'operator', () => ({ NATS_CREDS_FILE: operator.credsFile }), 'creds'],
    [
      'TLS with a client certificate',
      'tls',
      () => ({ NATS_TLS_CA_FILE: certs!.ca, NATS_TLS_CERT_FILE: certs!.clientCert, NATS_TLS_KEY_FILE: certs!.clientKey }),
      'none',
    ],
  ];
  for (const [what, server, credentials, auth] of cases) {
    it(`connects with ${what}: trace events stored, registry events subscribed, no secret in the status`, async (ctx) => {
      const nats = servers[server];
      if (!nats) return ctx.skip();
      const tag = crypto.randomBytes(3).toString('hex');
      const env = credentials();
      const url = server === 'tls' ? `tls://127.0.0.1:${nats.port}` : nats.url;
      const rt = await startTestRuntime({
        env: {
          AGENT_ID: 'cred-agent',
          TRACE_SINKS: 'nats',
          TRACE_NATS_STREAM: `C_${tag}`,
          TRACE_NATS_PREFIX: `c${tag}.traces`,
          REGISTRY_EVENTS: 'nats',
          NATS_URL: url,
          ...env,
        },
      });
      try {
        await waitFor(async () => (await status(rt)).registry_events?.state === 'subscribed', 15_000, 'registry events to subscribe');
        const r = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as { result: Task };
        expect(r.result.status.state).toBe('completed');
        const s = await waitFor(
          async () => {
            const st = await status(rt);
            return st.trace_sinks.nats.state === 'connected' && st.trace_sinks.nats.buffered === 0 && st.trace_sinks.nats.published >= rt.traces.length
              ? st
              : null;
          },
          15_000,
          'the trace sink to publish every event',
        );
        expect(s.nats).toEqual({ servers: url, auth, tls: server === 'tls', inbox_prefix: '_INBOX' });
        const shown = JSON.stringify(s);
        for (const v of Object.values(env)) if (!v.startsWith('/')) expect(shown).not.toContain(v);
      } finally {
        await rt.close();
      }
    }, 30_000);
  }

  it('a wrong password is a logged failure naming the cause, without the password, and the runtime keeps serving', async () => {
    const lines: { msg: string; err?: string }[] = [];
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _enc, cb) => (lines.push(JSON.parse(String(chunk))), cb()) }));
    const wrong = `wrong-${crypto.randomBytes(8).toString('hex')}`;
    const rt = await startTestRuntime({ logger, env: { TRACE_SINKS: 'log,nats', NATS_URL: servers.users.url, NATS_USER: 'rt', NATS_PASSWORD: wrong } });
    try {
      const line = await waitFor(async () => lines.find((l) => l.msg.includes('cannot connect to NATS')), 15_000, 'the failure to be logged');
      expect(line.err).toMatch(/authorization/i);
      const r = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as { result: Task };
      expect(r.result.status.state).toBe('completed');
      const s = await status(rt);
      expect(s.trace_sinks.nats).toMatchObject({ state: 'connecting', last_error: expect.stringMatching(/authorization/i) });
      expect(s.nats.auth).toBe('user-password');
      expect(JSON.stringify([lines, s])).not.toContain(wrong);
    } finally {
      await rt.close();
    }
  });
});
