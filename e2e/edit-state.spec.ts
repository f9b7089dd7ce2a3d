// Edit the state of a paused run: a breakpoint after `router` pauses the run there with the
// state shown; in the State panel's editor (Monaco, validated against the state's schema) a
// channel the state does not have is marked and blocks Fork and Continue; `intents` edited to
// one intent goes with Continue, and the answer follows the edit.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';
import { StateEditorPage } from './pages/state-editor.ts';
import { RunPage } from './pages/run.ts';
import { StudioPage } from './pages/studio.ts';

const TWO = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';
/** 2.5 MB of text: the request and the conversation each hold it, a state of about 5 MB. */
const BIG = `Where is my order ORD-12345? ${'The parcel was meant to arrive last week. '.repeat(Math.ceil((2.5 * 1024 * 1024) / 42))}`;

describe('edit the state of a paused run', () => {
  const world = useStudioWorld();

  it('pauses after router with the state shown; an edited intents goes with Continue and the answer follows it', async () => {
    const w = world();
    const { page, api } = w;
    const { composer, run, sessionId } = await openNewSession(w);
    expect((await api.call('PUT', `/sessions/${sessionId}/breakpoints`, { node: 'router', when: 'after' })).status).toBe(200);
    await composer.typeText(TWO);
    await composer.send();
    const paused = await run.waitForNewRun(null);
    await run.waitForStatus('input_required');
    const bar = page.getByTestId('pause-bar');
    await bar.waitFor();
    expect([await bar.getAttribute('data-node'), await bar.getAttribute('data-when')]).toEqual(['router', 'after']);

    // The State panel opens on the step the run paused at, with the state there.
    const section = run.root.getByTestId('state-section');
    await section.locator('summary').click();
    const detail = section.getByTestId('state-detail');
    await detail.locator('[data-testid="state-fork"][data-paused-here="true"]').waitFor();
    const intents = detail.locator('[data-testid="state-channel"][data-channel="intents"]');
    expect(await intents.textContent()).toContain('["refund","order_status"]');
    const pause = (await api.call('GET', `/runs/${paused}/pause`)).body;
    const state = (await api.call('GET', `/sessions/${sessionId}/checkpoints/${pause.checkpoint_id}`)).body.values as Record<string, unknown>;

    await detail.getByTestId('edit-and-fork').click();
    const editor = new StateEditorPage(page, detail);
    expect(await editor.mode()).toBe('monaco');
    // A channel the state does not have: marked, and neither Fork nor Continue can start.
    await editor.paste(JSON.stringify({ ...state, intent: ['order_status'] }, null, 2));
    await expect.poll(() => editor.problems().count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await editor.problems().first().textContent()).toContain('intent');
    expect(await detail.getByTestId('edit-continue').isDisabled()).toBe(true);
    expect(await detail.getByTestId('fork-submit').isDisabled()).toBe(true);
    await editor.problems().first().scrollIntoViewIfNeeded();
    await w.screenshot('82-state-editor-invalid-channel');

    await editor.paste(JSON.stringify({ ...state, intents: ['order_status'] }, null, 2));
    await expect.poll(() => editor.problems().count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => detail.getByTestId('edit-continue').isDisabled()).toBe(false);
    await detail.getByTestId('edit-continue').click();

    const continued = await run.waitForNewRun(paused);
    await run.waitForStatus('completed');
    const done = await api.run(continued);
    expect(done.parent_run_id).toBe(paused);
    expect(done.edit).toMatchObject({
      checkpoint_id: pause.checkpoint_id,
      node: 'router',
      patch: [{ op: 'replace', path: '/intents', value: ['order_status'] }],
    });
    const data = done.output_parts.find((p) => p.kind === 'data') as { data: { intents: string[] } } | undefined;
    expect(data?.data.intents).toEqual(['order_status']);
    expect(JSON.stringify(done.output_parts)).not.toContain('refund of');
    await w.screenshot('83-continued-with-edited-state');
  });

  it('opens the state of a 5 MB turn with its channels closed and sized; they open, and the steps stay usable', async () => {
    const { page, url, api } = world();
    const session = await api.createSession('Large state');
    const created = await api.createRun(session.session_id, { parts: [{ kind: 'text', text: BIG }] });
    expect(created.status).toBe(202);
    await api.waitForEnd(created.body.run_id, 60_000);
    await new StudioPage(page, url).open(`#/sessions/${session.session_id}/runs/${created.body.run_id}`);
    const run = new RunPage(page);
    await run.waitForStatus('completed');
    const section = run.root.getByTestId('state-section');
    await section.locator('summary').click();
    const detail = section.getByTestId('state-detail');
    await detail.waitFor({ timeout: 30_000 });
    const channel = (name: string) => detail.locator(`[data-testid="state-channel"][data-channel="${name}"]`);
    // Every channel closed, each with its size: the big ones in KiB.
    expect(await detail.getByTestId('state-channel-value').count()).toBe(0);
    expect(await channel('messages').locator('.tree__count').textContent()).toMatch(/^2\d{3} KiB$/);
    await channel('intents').locator('button.tree__toggle').click();
    await channel('intents').getByTestId('state-channel-value').waitFor();
    await world().screenshot('84-state-of-5-mb');
    // The conversation opens as messages.
    await channel('messages').locator('button.tree__toggle').click();
    const messages = channel('messages').locator('[data-testid="state-messages"] li');
    await messages.first().waitFor();
    expect(await messages.evaluateAll((items) => items.map((i) => i.getAttribute('data-type')))).toEqual(['human', 'ai']);
    // Another step opens at once.
    const first = section.getByTestId('state-step').first();
    await first.click();
    await section.locator(`[data-testid="state-detail"][data-checkpoint-id="${await first.getAttribute('data-checkpoint-id')}"]`).waitFor();
  });
});
