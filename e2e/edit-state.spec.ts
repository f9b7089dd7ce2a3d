// Edit the state of a paused run: a breakpoint after `router` pauses the run there with the
// state shown; in the State panel's editor (Monaco, validated against the state's schema) a
// channel the state does not have is marked and blocks Fork and Continue; `intents` edited to
// one intent goes with Continue, and the answer follows the edit.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';
import { StateEditorPage } from './pages/state-editor.ts';

const TWO = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';

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
});
