// Per-run step mode (docs/playground-api.md, "Per-run step mode"): `debug: {step: true}` on
// POST /sessions/{id}/runs pauses that run before every node, without a session breakpoint;
// the session's next run is not paused; a bad `debug` is 400 before anything is created.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';

const ORDER = 'Where is my order ORD-12345?';

describe('per-run step mode through the Playground', () => {
  let t: TestStudio;
  let session: string;
  beforeAll(async () => {
    t = await startTestStudio();
    session = (await t.call('POST', '/sessions', { title: 'step run' })).body.session_id;
  });
  afterAll(() => t?.close());

  it('refuses a bad debug field with 400 invalid_request and creates nothing', async () => {
    for (const debug of [{ step: 'yes' }, { step: true, extra: 1 }, 'step', null]) {
      const bad = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: ORDER }], debug });
      expect(bad.status).toBe(400);
      expect(bad.body.detail.error).toBe('invalid_request');
    }
    expect((await t.call('GET', `/sessions/${session}/runs`)).body.items).toEqual([]);
  });

  it('pauses that run before its first node and again after Step, with no session breakpoint; the next run is not paused', async () => {
    const created = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: ORDER }], debug: { step: true } });
    expect(created.status).toBe(202);
    const paused = await waitForRun(t, created.body.run_id);
    expect([paused.status, paused.reason]).toEqual(['input_required', 'breakpoint']);
    expect((await t.call('GET', `/runs/${paused.run_id}/pause`)).body).toMatchObject({ node: 'guardrail', when: 'before', state: 'paused' });
    expect((await t.call('GET', `/sessions/${session}/breakpoints`)).body.items).toEqual([]);

    const step = await t.call('POST', `/runs/${paused.run_id}/resume`, { breakpoint: 'step' });
    const stepped = await waitForRun(t, step.body.run_id);
    expect((await t.call('GET', `/runs/${stepped.run_id}/pause`)).body).toMatchObject({ node: 'router', when: 'before' });
    // Continue runs on to the end: step mode was for the first run only.
    const cont = await t.call('POST', `/runs/${stepped.run_id}/resume`, { breakpoint: 'continue' });
    expect((await waitForRun(t, cont.body.run_id)).status).toBe('completed');

    const plain = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: ORDER }], debug: { step: false } });
    expect(plain.status).toBe(202);
    expect((await waitForRun(t, plain.body.run_id)).status).toBe('completed');
  });
});
