// A large state in the debugger (docs/playground-api.md, "The state at every step"): a turn
// whose state is about 5 MB (a 2.5 MB message: the request and the conversation each hold it)
// is read step by step like any other: the run's checkpoints list, and a checkpoint's detail
// comes with every channel's size, so a client keeps the big channels closed until opened.
// On each checkpoint store of the studio's runtime child.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, waitForRun, type TestStudio } from './helpers/playground-studio.ts';
import { childOn, expectCheckpointsInSchema, STORES } from './helpers/studio-child.ts';

const MB = 1024 * 1024;
const BIG = `Where is my order ORD-12345? ${'The parcel was meant to arrive last week. '.repeat(Math.ceil((2.5 * MB) / 42))}`;

describe.each(STORES)('a 5 MB state (runtime child on %s)', (store) => {
  const child = childOn(store, 'bigstate');
  let t: TestStudio;
  beforeAll(async () => {
    t = await startTestStudio({ runtimeCommand: child.runtimeCommand });
  });
  afterAll(() => t?.close());

  it('lists the run’s steps and answers the detail of its last one with each channel’s size', async () => {
    const session = (await t.call('POST', '/sessions', { title: 'big' })).body.session_id;
    const created = await t.call('POST', `/sessions/${session}/runs`, { parts: [{ kind: 'text', text: BIG }] });
    expect(created.status).toBe(202);
    const run = await waitForRun(t, created.body.run_id, undefined, 60_000);
    expect(run.status).toBe('completed');
    const listed = await t.call('GET', `/runs/${run.run_id}/checkpoints`);
    expect(listed.status).toBe(200);
    const steps = listed.body.items as { checkpoint_id: string; writes: Record<string, string[]> }[];
    expect(steps.length).toBeGreaterThan(3);
    const last = (await t.call('GET', `/sessions/${session}/checkpoints/${steps.at(-1)!.checkpoint_id}`)).body;
    const total = Object.values(last.sizes as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(5 * MB);
    expect(last.sizes.messages).toBeGreaterThan(2.5 * MB);
    expect(last.sizes.intents).toBeLessThan(100);
    expect(last.values.messages.map((m: { type: string }) => m.type)).toEqual(['human', 'ai']);
    expect(last.values.messages[0].content).toBe(BIG);
    // The step's diff names what changed, not the whole state.
    expect(last.diff.changes.every((c: { path: string }) => !c.path.startsWith('/request'))).toBe(true);
    await expectCheckpointsInSchema(child.schema, run.context_id);
  });
});
