// The NATS trace sink (docs/runtime-traces.md) against a real nats-server with JetStream: every
// trace event on `<prefix>.<agent>.<event>` as the log sink's JSON, in order and once, across
// a NATS restart; the request path unaffected while NATS is down, the buffer bounded.
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import type { Task } from '@a2a-js/sdk';
import { sendParams, startTestRuntime, type TestRuntime } from './helpers/runtime.ts';
import { startNats, type TestNats } from './helpers/nats.ts';
import { waitFor } from './helpers/playground-studio.ts';

async function status(rt: TestRuntime): Promise<Record<string, any>> {
  return ((await (await fetch(`${rt.url}api/v1/status`)).json()) as { data: { trace_sinks: Record<string, any> } }).data.trace_sinks;
}

describe('trace events on NATS JetStream', () => {
  let nats: TestNats;
  beforeAll(async () => {
    nats = await startNats();
  });
  afterAll(async () => nats?.stop());

  it("arrive on the agent's subjects as the log sink's JSON, in order and once, across a NATS restart", async () => {
    const tag = crypto.randomBytes(3).toString('hex');
    const stream = `T_${tag}`;
    const prefix = `test${tag}.traces`;
    const rt = await startTestRuntime({
      env: { AGENT_ID: 'nats-agent', TRACE_SINKS: 'log,nats', NATS_URL: nats.url, TRACE_NATS_STREAM: stream, TRACE_NATS_PREFIX: prefix },
    });
    try {
      await waitFor(async () => (await status(rt)).nats?.state === 'connected', 15_000, 'the sink to connect');
      const send = async (text: string) => ((await rt.client.sendMessage(sendParams(text))) as { result: Task }).result.status.state;
      for (const text of ['How do I reset my password?', 'Where is my order ORD-23456?']) expect(await send(text)).toBe('completed');
      await nats.stop();
      await waitFor(async () => (await status(rt)).nats?.state === 'reconnecting', 15_000, 'the sink to notice');
      // NATS is down: requests are answered as usual, their events wait in the buffer.
      for (const text of ['I want a refund for ORD-12345', 'How do I reset my password?']) expect(await send(text)).toBe('completed');
      expect((await status(rt)).nats.buffered).toBeGreaterThan(0);
      await nats.start();
      const after = await waitFor(
        async () => {
          const s = (await status(rt)).nats;
          return s.state === 'connected' && s.buffered === 0 ? s : undefined;
        },
        30_000,
        'the buffer to drain',
      );
      expect(after).toMatchObject({ dropped: 0, subject_prefix: prefix, stream });

      // Read the stream back: every event the runtime emitted, in order, none twice.
      const emitted = rt.traces.map((e) => JSON.stringify(e));
      const nc = await connect({ servers: nats.url });
      try {
        const consumer = await jetstream(nc).consumers.get(stream);
        const got: { subject: string; data: string }[] = [];
        const messages = await consumer.fetch({ max_messages: emitted.length + 10, expires: 2_000 });
        for await (const m of messages) got.push({ subject: m.subject, data: m.string() });
        expect(got.map((m) => m.data)).toEqual(emitted);
        expect(got[0].subject).toBe(`${prefix}.nats-agent.${JSON.parse(got[0].data).name.replace(/[^A-Za-z0-9_-]+/g, '_')}`);
        expect(new Set(got.map((m) => m.subject.split('.').slice(0, 3).join('.')))).toEqual(new Set([`${prefix}.nats-agent`]));
        expect(got.some((m) => JSON.parse(m.data).name === 'invoke.end')).toBe(true);
      } finally {
        await nc.close();
      }
    } finally {
      await rt.close();
    }
  }, 90_000);

  it('never holds a request while NATS is unreachable, and keeps a bounded buffer (oldest dropped, counted)', async () => {
    const rt = await startTestRuntime({ env: { TRACE_SINKS: 'nats,log', NATS_URL: 'nats://127.0.0.1:1', TRACE_NATS_BUFFER: '5' } });
    try {
      for (let i = 0; i < 3; i++) {
        const r = (await rt.client.sendMessage(sendParams('How do I reset my password?'))) as { result: Task };
        expect(r.result.status.state).toBe('completed');
      }
      const s = (await status(rt)).nats;
      expect(s.state).toBe('connecting');
      expect(s.buffered).toBe(5);
      expect(s.dropped).toBe(rt.traces.length - 5);
      expect(s.last_error).toBeTruthy();
    } finally {
      await rt.close();
    }
  });
});
