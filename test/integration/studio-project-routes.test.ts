// The studio's views of the open project: the runtime graph through the studio, the input
// contracts for the composer, blob downloads, and the supervised runtime's state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { openEvents, startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

describe('studio project routes', () => {
  let s: TestStudio;
  beforeAll(async () => {
    s = await startTestStudio();
  });
  afterAll(async () => s?.close());

  it('serves the runtime graph through the studio', async () => {
    const r = await s.call('GET', '/graph');
    expect(r.status).toBe(200);
    expect(r.body.exit_node).toBe('respond');
    expect(r.body.edges.some((e: any) => e.conditional)).toBe(true);
  });

  it('lists the declared input contracts with their JSON Schema', async () => {
    const r = await s.call('GET', '/composer-schema');
    expect(r.status).toBe(200);
    expect(r.body.contracts).toEqual([expect.objectContaining({ schema: 'support.ticket/1', name: 'Ticket' })]);
    expect(r.body.contracts[0].json_schema.properties.topic.enum).toContain('refund');
  });

  it('lists the run options the project declares; a run sent with them carries them as metadata and streams scriptedChunks deltas', async () => {
    const r = await s.call('GET', '/composer-schema');
    expect(r.body.run_options).toEqual([
      { name: 'scriptedDelayMs', type: 'integer', default: 20, min: 0, max: 5000, description: expect.any(String) },
      { name: 'scriptedChunks', type: 'integer', default: 6, min: 1, max: 1000, description: expect.any(String) },
    ]);
    // What the composer sends: each run option's field, typed, in the request metadata.
    const session = (await s.call('POST', '/sessions', {})).body.session_id;
    const run = await s.call('POST', `/sessions/${session}/runs`, {
      parts: [{ kind: 'text', text: 'How do I reset my password?' }],
      metadata: { scriptedDelayMs: 5, scriptedChunks: 9 },
    });
    expect(run.status).toBe(202);
    const stream = openEvents(s.api, run.body.run_id);
    try {
      await stream.next((m) => m.data.kind === 'run.output');
      const deltas = stream.messages.filter((m) => m.data.kind === 'output.delta');
      expect(deltas).toHaveLength(9);
    } finally {
      stream.close();
    }
    const done = await waitForRun(s, run.body.run_id);
    expect(done).toMatchObject({ status: 'completed', metadata: { scriptedDelayMs: 5, scriptedChunks: 9 } });
  });

  it("suggests the card's skill examples and the values earlier successful runs used, not those of failed runs", async () => {
    const before = await s.call('GET', '/composer-schema');
    expect(before.body.skill_examples).toContainEqual({ skill_id: 'refunds', skill_name: 'Refunds', text: 'I want a refund for order ORD-12345' });
    const session = (await s.call('POST', '/sessions', {})).body.session_id;
    const send = async (data: Record<string, unknown>) => {
      const run = await s.call('POST', `/sessions/${session}/runs`, {
        parts: [
          { kind: 'text', text: 'help' },
          { kind: 'data', data },
        ],
      });
      return waitForRun(s, run.body.run_id);
    };
    expect((await send({ schema: 'support.ticket/1', topic: 'order_status', orderId: 'ORD-12345', priority: 'high' })).status).toBe('completed');
    expect((await send({ schema: 'support.ticket/1', topic: 'order_status', orderId: 'ORD-12345' })).status).toBe('completed');
    expect((await send({ schema: 'support.ticket/1', topic: 'order_status', priority: 'urgent' })).status).toBe('failed');
    const after = await s.call('GET', '/composer-schema');
    const history = after.body.contracts[0].history as { pointer: string; values: { value: unknown; count: number }[] }[];
    expect(history.find((h) => h.pointer === '/orderId')?.values[0]).toMatchObject({ value: 'ORD-12345', count: 2 });
    expect(history.find((h) => h.pointer === '/topic')?.values[0]).toMatchObject({ value: 'order_status', count: 2 });
    // The failed run's value is not learnt.
    expect(history.find((h) => h.pointer === '/priority')?.values.map((v) => v.value)).toEqual(['high']);
  });

  it('checks a data part against its contract with the rules of the runtime, listing problems by path', async () => {
    const ok = await s.call('POST', '/composer-schema/validate', {
      schema: 'support.ticket/1',
      data: { schema: 'support.ticket/1', topic: 'refund', orderId: 'ORD-12345' },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ valid: true, checked: true, problems: [] });
    const bad = await s.call('POST', '/composer-schema/validate', {
      schema: 'support.ticket/1',
      data: { schema: 'support.ticket/1', topic: 'complaint', orderId: 'nope', colour: 1 },
    });
    expect(bad.body.valid).toBe(false);
    expect(bad.body.problems).toContainEqual({
      path: '/topic',
      message: 'must be one of: refund, order_status, question',
      allowed: ['refund', 'order_status', 'question'],
    });
    expect(bad.body.problems.map((p: { path: string }) => p.path)).toEqual(expect.arrayContaining(['/orderId', '/colour']));
    // The runtime refuses the same part with the same words.
    const session = (await s.call('POST', '/sessions', {})).body.session_id;
    const run = await s.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'data', data: { schema: 'support.ticket/1', topic: 'complaint' } }] });
    const done = await waitForRun(s, run.body.run_id);
    expect(done.status).toBe('failed');
    const error = done.output_parts.find((p) => p.kind === 'data') as { data: { errorMessage: string } } | undefined;
    expect(JSON.stringify(done.output_parts)).toContain('/topic must be one of: refund, order_status, question');
    expect(error).toBeDefined();
    const unknown = await s.call('POST', '/composer-schema/validate', { schema: 'nope/1', data: {} });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toMatchObject({ error: 'not_found', contracts: ['support.ticket/1'] });
    expect((await s.call('POST', '/composer-schema/validate', { data: {} })).status).toBe(400);
  });

  it('downloads a stored file by hash, and 404s an unknown one', async () => {
    const bytes = Buffer.from('receipt #42');
    const sha = crypto.createHash('sha256').update(bytes).digest('hex');
    const session = await s.call('POST', '/sessions', { title: 'blobs' });
    const run = await s.call('POST', `/sessions/${session.body.session_id}/runs`, {
      parts: [
        { kind: 'text', text: 'How do I reset my password?' },
        { kind: 'file', name: 'r.txt', mime_type: 'text/plain', bytes_base64: bytes.toString('base64') },
      ],
    });
    expect(run.status).toBe(202);
    const res = await fetch(`${s.api}/blobs/${sha}`);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('receipt #42');
    expect((await s.call('GET', `/blobs/${'0'.repeat(64)}`)).status).toBe(404);
    // let the run finish before the studio closes
    for (let i = 0; i < 100; i++) {
      const d = await s.call('GET', `/runs/${run.body.run_id}`);
      if (!['queued', 'preparing', 'running'].includes(d.body.status)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
  });

  it('reports the supervised runtime state', async () => {
    const r = await s.call('GET', '/runtime');
    expect(r.body).toMatchObject({ state: 'ready' });
    expect(r.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  });
});
