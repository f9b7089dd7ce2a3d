// The debugger's navigation (docs/studio-ui.md): a span of the timeline and a node of the graph
// open the state at their step; the session's State view pages through the whole thread,
// newest first; a gutter glyph in the source view sets a breakpoint the graph view lists; a
// run started with "Pause before every node" pauses without a session breakpoint and shows
// its pause line in the source; in step mode Step goes through the fan-out branch by branch.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { StudioApi } from './api.ts';
import { useStudioWorld } from './fixtures.ts';
import { ComposerPage } from './pages/composer.ts';
import { openNewSession } from './pages/session.ts';

const ORDER = 'Where is my order ORD-12345?';
const TWO = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';

/** The state detail open in the run view's State section. */
async function openStateId(page: Page): Promise<string | null> {
  const detail = page.getByTestId('state-section').getByTestId('state-detail');
  await detail.waitFor();
  return detail.getAttribute('data-checkpoint-id');
}

async function checkpoint(api: StudioApi, sessionId: string, id: string): Promise<{ next: string[]; run_id: string | null }> {
  return (await api.call('GET', `/sessions/${sessionId}/checkpoints/${id}`)).body;
}

describe('debugger navigation', () => {
  const world = useStudioWorld();

  it('opens the state a span’s step wrote, and the state before and after a node from the graph', async () => {
    const { page, api, screenshot } = world();
    const { studio, composer, run, sessionId } = await openNewSession(world());
    await composer.typeText(TWO);
    await composer.send();
    const runId = await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    await page.locator('[data-testid="span-row"][data-node="router"] button').first().click();
    const after = page.getByTestId('span-detail').getByTestId('state-after');
    await after.waitFor();
    const wrote = await after.getAttribute('data-checkpoint-id');
    await after.click();
    await expect.poll(() => page.getByTestId('state-section').evaluate((d) => d.hasAttribute('open'))).toBe(true);
    await expect.poll(() => openStateId(page)).toBe(wrote);
    const current = page.locator('[data-testid="state-step"][aria-current="step"]');
    expect(await current.getAttribute('data-writes')).toBe('router');
    await screenshot('90-span-state');

    // A fan-out branch opens the step of its node.
    await page.locator('[data-testid="span-row"][data-node="skills[refund]"] button').first().click();
    await page.getByTestId('span-detail').getByTestId('state-after').click();
    await expect.poll(async () => page.locator('[data-testid="state-step"][aria-current="step"]').getAttribute('data-writes')).toBe('skills');

    // The graph view: the state before router (waiting for it) and after it, in the selected run.
    await studio.showView('graph');
    await page.locator('[data-testid="graph-node"][data-node-id="router"]').click();
    const before = page.getByTestId('node-details').getByTestId('state-before');
    await before.waitFor();
    const beforeId = (await before.getAttribute('data-checkpoint-id'))!;
    expect((await checkpoint(api, sessionId, beforeId)).next).toEqual(['router']);
    await before.click();
    await run.waitForRun(runId);
    await expect.poll(() => openStateId(page)).toBe(beforeId);
    await studio.showView('graph');
    await page.getByTestId('node-details').getByTestId('state-after').click();
    await expect.poll(() => openStateId(page)).toBe(wrote);
  });

  it('pages through every checkpoint of the thread, newest (the current state) first, each naming its run', async () => {
    const { page, api, url, screenshot } = world();
    const session = await api.createSession('long thread');
    // Enough turns for more than one page (50 checkpoints a page).
    let total = 0;
    const runIds: string[] = [];
    while (total <= 60) {
      const created = await api.createRun(session.session_id, { parts: [{ kind: 'text', text: ORDER }] });
      runIds.push(created.body.run_id);
      expect((await api.waitForEnd(created.body.run_id)).status).toBe('completed');
      total = (await api.call('GET', `/sessions/${session.session_id}/checkpoints?limit=200`)).body.items.length;
    }
    const newest = (await api.call('GET', `/sessions/${session.session_id}/checkpoints?limit=1`)).body.items[0];

    const { studio } = await openNewSession({ page, url });
    await studio.selectSession(session.session_id);
    await page.getByTestId('session-mode-state').click();
    const history = page.getByTestId('thread-history');
    await history.waitFor();
    // One click: the thread's current state.
    await expect.poll(() => history.getByTestId('state-detail').getAttribute('data-checkpoint-id')).toBe(newest.checkpoint_id);
    const first = history.getByTestId('thread-checkpoint').first();
    expect(await first.getAttribute('data-checkpoint-id')).toBe(newest.checkpoint_id);
    expect(await first.getAttribute('data-run-id')).toBe(runIds.at(-1));
    expect(await history.getAttribute('data-count')).toBe('50');
    await screenshot('91-thread-history');

    await history.getByTestId('thread-load-more').click();
    await expect.poll(() => history.getAttribute('data-count')).toBe(String(total));
    await history.getByTestId('thread-history-end').waitFor();
    // The oldest entries are the first run's; opening one shows it in its run's State panel.
    const scroll = history.getByTestId('thread-history-scroll');
    await scroll.evaluate((el) => (el.scrollTop = el.scrollHeight));
    const oldest = history.locator(`[data-testid="thread-checkpoint"][data-index="${total - 1}"]`);
    await oldest.waitFor();
    expect(await oldest.getAttribute('data-run-id')).toBe(runIds[0]);
    const oldestId = await oldest.getAttribute('data-checkpoint-id');
    await oldest.click();
    await expect.poll(() => history.getByTestId('state-detail').getAttribute('data-checkpoint-id')).toBe(oldestId);
    await history.getByTestId('thread-open-in-run').click();
    await page.locator(`[data-testid="run-view"][data-run-id="${runIds[0]}"]`).waitFor();
    await expect.poll(() => openStateId(page)).toBe(oldestId);
  });

  it('sets a breakpoint from the source gutter, listed in the graph view', async () => {
    const { page, api } = world();
    const { studio, sessionId } = await openNewSession(world());
    await studio.showView('graph');
    await page.locator('[data-testid="graph-node"][data-node-id="router"]').click();
    await page.getByTestId('node-go-to-source').click();
    const editor = page.getByTestId('source-editor');
    await expect.poll(() => editor.getAttribute('data-breakpoint-lines')).toMatch(/\d+:router:off/);
    const line = Number(/(\d+):router:off/.exec((await editor.getAttribute('data-breakpoint-lines'))!)![1]);
    // The glyph beside the router's function line (Monaco places each at its line's top; the
    // line was revealed by "Go to source").
    type Styled = { style: { top: string; height: string } };
    // Monaco draws the glyphs on its next frame: found once drawn.
    const glyphAt = () =>
      editor
        .locator('.bp-glyph')
        .evaluateAll((els, l) => els.findIndex((e) => parseFloat((e as Styled).style.top) === (l - 1) * parseFloat((e as Styled).style.height)), line);
    const clickGlyph = async () => {
      await expect.poll(glyphAt, { message: `a glyph on line ${line}` }).toBeGreaterThanOrEqual(0);
      await editor
        .locator('.bp-glyph')
        .nth(await glyphAt())
        .click();
    };
    const listed = async () =>
      (await api.call('GET', `/sessions/${sessionId}/breakpoints`)).body.items.map((b: { node: string; when: string }) => [b.node, b.when]);
    await clickGlyph();
    await expect.poll(() => editor.getAttribute('data-breakpoint-lines')).toContain(`${line}:router:on`);
    expect(await editor.locator('.bp-glyph--on').count()).toBe(1);
    expect(await listed()).toEqual([['router', 'before']]);
    // A second click clears it; a third sets it again.
    await clickGlyph();
    await expect.poll(() => editor.getAttribute('data-breakpoint-lines')).toContain(`${line}:router:off`);
    expect(await listed()).toEqual([]);
    await clickGlyph();
    await expect.poll(listed).toEqual([['router', 'before']]);
    await studio.showView('graph');
    await page.locator('[data-testid="breakpoint-item"][data-node="router"][data-when="before"]').waitFor();
  });

  it('pauses a run started with “Pause before every node” without a session breakpoint, and shows the pause line in the source', async () => {
    const { page, api, screenshot } = world();
    const { composer, run, sessionId } = await openNewSession(world());
    await composer.typeText(ORDER);
    await page.getByTestId('run-step-mode').check();
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('input_required');
    const bar = page.getByTestId('pause-bar');
    await expect.poll(() => bar.getAttribute('data-node')).toBe('guardrail');
    expect((await api.call('GET', `/sessions/${sessionId}/breakpoints`)).body.items).toEqual([]);
    expect(await page.getByTestId('run-step-mode').isChecked()).toBe(false);
    await bar.getByTestId('pause-show-source').click();
    const editor = page.getByTestId('source-editor');
    await expect.poll(() => editor.getAttribute('data-paused-line')).toMatch(/^\d+:guardrail$/);
    await page.locator('.source-paused-line').first().waitFor();
    await screenshot('92-paused-line-in-source');
  });

  it('steps through the fan-out branch by branch in step mode', async () => {
    const { page, api } = world();
    const { studio, run, sessionId } = await openNewSession(world());
    await studio.showView('graph');
    const step = page.locator('[data-testid="breakpoint-buttons"][aria-label="Breakpoints on *"] [data-testid="breakpoint-before"]');
    await step.click();
    await expect.poll(() => step.getAttribute('aria-pressed')).toBe('true');
    const composer = new ComposerPage(page, 'compact-composer');
    await composer.typeText(TWO);
    await composer.send();
    await studio.showView('run');
    const seen: string[] = [];
    let previous: string | null = null;
    for (let i = 0; i < 12; i++) {
      const id = await run.waitForNewRun(previous);
      await run.waitForStatus(['input_required', 'completed', 'failed']);
      if ((await run.status()) !== 'input_required') break;
      const bar = page.locator(`[data-testid="run-view"][data-run-id="${id}"] [data-testid="pause-bar"]`);
      await bar.waitFor();
      seen.push((await bar.getAttribute('data-node'))!);
      await bar.getByTestId('pause-step').click();
      previous = id;
    }
    expect(await run.status()).toBe('completed');
    expect(seen).toEqual(['guardrail', 'router', 'skills', 'skills[refund]', 'skills[order_status]', 'respond']);
    const runs = await api.runs(sessionId);
    expect(runs.filter((r) => r.reason === 'breakpoint')).toHaveLength(seen.length);
  });
});
