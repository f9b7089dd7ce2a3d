// Edit and fork from a finished run's State panel: the step after `router` is forked with
// `intents` changed to ['order_status']; the studio opens the new run, which names its origin
// and completes with an answer that follows the edit, running from the skills fan-out on: the
// nodes before it do not run again.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';
import { StateEditorPage } from './pages/state-editor.ts';

describe('fork from a step', () => {
  const world = useStudioWorld();

  it('edits the state after router and forks: the new run answers for the edit', async () => {
    const w = world();
    const { composer, run } = await openNewSession(w);
    await composer.typeText('I want a refund for order ORD-12345. Where is my order ORD-23456?');
    await composer.send();
    const origin = await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    const section = run.root.getByTestId('state-section');
    await section.locator('summary').click();
    const afterRouter = section.locator('[data-testid="state-step"][data-writes="router"]');
    await afterRouter.click();
    const detail = section.locator(`[data-testid="state-detail"][data-checkpoint-id="${await afterRouter.getAttribute('data-checkpoint-id')}"]`);
    await detail.getByTestId('edit-and-fork').click();
    const sessionId = (await w.api.run(origin)).session_id;
    const checkpoint = await afterRouter.getAttribute('data-checkpoint-id');
    const state = (await w.api.call('GET', `/sessions/${sessionId}/checkpoints/${checkpoint}`)).body.values as Record<string, unknown>;
    expect(state.intents).toEqual(['refund', 'order_status']);
    const editor = new StateEditorPage(w.page, detail);
    // An edit of a type the state's schema refuses is marked first; then the right one.
    await editor.paste(JSON.stringify({ ...state, intents: 'order_status' }, null, 2));
    await expect.poll(() => editor.problems().count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await detail.getByTestId('fork-submit').isDisabled()).toBe(true);
    await editor.paste(JSON.stringify({ ...state, intents: ['order_status'] }, null, 2));
    await expect.poll(() => editor.problems().count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => detail.getByTestId('fork-submit').isDisabled()).toBe(false);
    await detail.getByTestId('fork-submit').click();

    const forked = await run.waitForNewRun(origin);
    await run.waitForStatus('completed');
    expect(await run.root.getByTestId('fork-lineage').textContent()).toContain('after router');
    const detailApi = await w.api.run(forked);
    expect(detailApi.fork).toMatchObject({ run_id: origin, node: 'router', patch: [{ op: 'replace', path: '/intents', value: ['order_status'] }] });
    const data = detailApi.output_parts.find((p) => p.kind === 'data') as { data: { intents: string[] } } | undefined;
    expect(data?.data.intents).toEqual(['order_status']);
    // The fork starts at the fan-out: skills and its one branch run, the nodes before it do not.
    const spans = (await w.api.events(forked))
      .map((e) => e as unknown as { kind: string; name?: string; data?: { node?: string } })
      .filter((e) => e.kind === 'trace' && e.name === 'span.start')
      .map((e) => e.data?.node);
    expect(spans).toEqual(expect.arrayContaining(['skills', 'respond']));
    expect(spans).not.toContain('guardrail');
    expect(spans).not.toContain('router');
    await expect.poll(() => run.root.locator('[data-testid="span-row"][data-node="skills[order_status]"]').count()).toBe(1);
    expect(await run.root.locator('[data-testid="span-row"][data-node="skills[refund]"]').count()).toBe(0);
    await w.screenshot('71-fork-from-a-step');
  });
});
