// Cluster control acts only on messages from the agent's own replicas (D-48; docs/security.md,
// "The message broker"): a card URL, or a cancel of a running task, published on the control
// subject by a plain NATS client (unsigned, signed with another secret, stale, or a replay of a
// genuine message) changes nothing and is logged without the secret; the same from a replica
// holding CLUSTER_CONTROL_SECRET is applied.
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import type { Msg, NatsConnection } from '@nats-io/nats-core';
import { copyExample, sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startNats, type TestNats } from './helpers/nats.ts';
import { waitFor } from './helpers/playground-studio.ts';
import { MessageSigner, SIGNATURE_WINDOW_MS } from '../../src/main/runtime/cluster/signing.ts';

const SECRET = crypto.randomBytes(32).toString('base64');
const SUBJECT = 'agent-studio.control.signed-agent';

async function management(rt: TestRuntime, p: string, init?: RequestInit): Promise<any> {
  return ((await (await fetch(new URL(p, rt.url), init)).json()) as { data: any }).data;
}
const cardUrl = async (rt: TestRuntime) => ((await (await fetch(`${rt.url}.well-known/agent-card.json`)).json()) as { url: string }).url;
const refused = async (rt: TestRuntime) => (await management(rt, 'api/v1/status')).cluster_control.refused as number;
const patchCard = (rt: TestRuntime, url: string) =>
  management(rt, 'api/v1/card/url', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url }) });

describe('cluster control messages are signed', () => {
  let nats: TestNats;
  let a: TestRuntime;
  let b: TestRuntime;
  let plain: NatsConnection;
  const seen: Msg[] = [];
  const logB: { level: number; msg: string; reason?: string }[] = [];

  beforeAll(async () => {
    nats = await startNats();
    const env = { AGENT_ID: 'signed-agent', CLUSTER_CONTROL: 'nats', CLUSTER_CONTROL_SECRET: SECRET, NATS_URL: nats.url };
    const logger = pino({ level: 'warn' }, new Writable({ write: (chunk, _e, cb) => (logB.push(JSON.parse(String(chunk))), cb()) }));
    [a, b] = await Promise.all([
      startTestRuntime({ projectDir: copyExample('signed-a'), env: { ...env, REPLICA_ID: 'signed-a' } }),
      startTestRuntime({ projectDir: copyExample('signed-b'), env: { ...env, REPLICA_ID: 'signed-b' }, logger }),
    ]);
    for (const rt of [a, b])
      await waitFor(async () => (await management(rt, 'api/v1/status')).cluster_control?.state === 'subscribed', 10_000, 'cluster control to subscribe');
    plain = await connect({ servers: nats.url });
    plain.subscribe(SUBJECT, {
      callback: (_err, m) => {
        seen.push(m);
      },
    });
    await plain.flush();
  });
  afterAll(async () => {
    await plain?.close();
    await Promise.all([a?.close(), b?.close()]);
    await nats?.stop();
  });

  /** Publishes as an outsider and waits until B has refused it. */
  async function forge(data: string, headers?: ReturnType<MessageSigner['sign']>): Promise<void> {
    const before = await refused(b);
    plain.publish(SUBJECT, data, headers ? { headers } : undefined);
    await waitFor(async () => (await refused(b)) === before + 1, 10_000, 'B to refuse the message');
  }

  it('a card URL from a plain NATS client is refused (unsigned, another secret, stale, replayed); from a replica it applies', async () => {
    const original = await cardUrl(b);
    const body = JSON.stringify({ origin: 'intruder', msg: { op: 'card-url', url: 'https://evil.example.com/' } });
    await forge(body);
    await forge(body, new MessageSigner(crypto.randomBytes(32)).sign(SUBJECT, body));
    await forge(body, new MessageSigner(Buffer.from(SECRET), () => Date.now() - 2 * SIGNATURE_WINDOW_MS).sign(SUBJECT, body));
    expect(await cardUrl(b)).toBe(original);

    // A genuine change on replica A reaches B; its message, replayed later, is refused.
    await patchCard(a, 'https://agents.example.com/one');
    await waitFor(async () => (await cardUrl(b)) === 'https://agents.example.com/one', 10_000, 'B to serve the URL set on A');
    const genuine = seen.find((m) => m.string().includes('https://agents.example.com/one'))!;
    await patchCard(a, 'https://agents.example.com/two');
    await waitFor(async () => (await cardUrl(b)) === 'https://agents.example.com/two', 10_000, 'B to serve the second URL');
    await forge(genuine.string(), genuine.headers);
    expect(await cardUrl(b)).toBe('https://agents.example.com/two');

    const refusals = logB.filter((l) => l.msg.startsWith('cluster control: refused'));
    expect(refusals.map((l) => l.reason)).toEqual(['unsigned', 'bad signature', 'stale', 'replayed']);
    expect(JSON.stringify(logB)).not.toContain(SECRET);
    expect(JSON.stringify(await management(b, 'api/v1/status'))).not.toContain(SECRET);
  });

  it('a forged cancel leaves the run going; a signed one cancels it', async () => {
    const run = async (cancel: (taskId: string) => void): Promise<string> => {
      const stream = b.client.sendMessageStream(sendParams('Where is my order ORD-23456?', {}, { metadata: { scriptedDelayMs: 200, scriptedChunks: 10 } }));
      let asked = false;
      let state = '';
      for await (const event of stream) {
        if (event.kind === 'artifact-update' && !asked) {
          asked = true;
          cancel(event.taskId);
        }
        if (event.kind === 'status-update') state = event.status.state;
      }
      return state;
    };
    const before = await refused(b);
    const forged = (taskId: string) => plain.publish(SUBJECT, JSON.stringify({ origin: 'intruder', msg: { op: 'cancel', task_id: taskId } }));
    expect(await run(forged)).toBe('completed');
    expect(await refused(b)).toBe(before + 1);
    const replica = new MessageSigner(Buffer.from(SECRET));
    const signed = (taskId: string) => {
      const body = JSON.stringify({ origin: 'another-replica', msg: { op: 'cancel', task_id: taskId } });
      plain.publish(SUBJECT, body, { headers: replica.sign(SUBJECT, body) });
    };
    expect(await run(signed)).toBe('canceled');
  });
});
