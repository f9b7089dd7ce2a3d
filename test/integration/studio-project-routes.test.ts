// The studio's views of the open project: the runtime graph through the studio, the input
// contracts for the composer, blob downloads, and the supervised runtime's state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import crypto from 'node:crypto';
import { startTestStudio, type TestStudio } from './helpers/playground-studio.ts';

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

  it('downloads a stored file by hash, and 404s an unknown one', async () => {
    const bytes = Buffer.from('receipt #42');
    const sha = crypto.createHash('sha256').update(bytes).digest('hex');
    const session = await s.call('POST', '/sessions', { title: 'blobs' });
    const run = await s.call('POST', `/sessions/${session.body.session_id}/runs`, {
      parts: [{ kind: 'text', text: 'How do I reset my password?' }, { kind: 'file', name: 'r.txt', mime_type: 'text/plain', bytes_base64: bytes.toString('base64') }],
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
