// Breakpoints: a breakpoint set on `router` in the graph view pauses the session's next run
// there (the run view says where, with Continue, Step and Stop); Continue completes it.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { ComposerPage } from './pages/composer.ts';
import { openNewSession } from './pages/session.ts';

describe('breakpoints', () => {
  const world = useStudioWorld();

  it('pauses before router when set in the graph view, and Continue completes the run', async () => {
    const { page, api, screenshot } = world();
    const { studio, sessionId, run } = await openNewSession(world());
    await studio.showView('graph');
    await page.locator('[data-testid="graph-node"][data-node-id="router"]').click();
    const before = page.getByTestId('node-details').getByTestId('breakpoint-before');
    await before.click();
    await expect.poll(() => before.getAttribute('aria-pressed')).toBe('true');
    await page.locator('[data-testid="breakpoint-item"][data-node="router"][data-when="before"]').waitFor();
    await page.locator('[data-testid="graph-node"][data-node-id="router"][data-breakpoint="before"]').waitFor();

    const composer = new ComposerPage(page, 'compact-composer');
    await composer.typeText('Where is my order ORD-12345?');
    await composer.send();
    await expect.poll(async () => (await api.runs(sessionId))[0]?.status, { timeout: 30_000 }).toBe('input_required');

    await studio.showView('run');
    await run.waitForStatus('input_required');
    const bar = page.getByTestId('pause-bar');
    await bar.waitFor();
    expect(await bar.getAttribute('data-node')).toBe('router');
    expect(await bar.getAttribute('data-when')).toBe('before');
    await screenshot('80-paused-at-breakpoint');

    const paused = await run.runId();
    await bar.getByTestId('pause-continue').click();
    const next = await run.waitForNewRun(paused);
    expect(next).not.toBe(paused);
    await run.waitForStatus('completed');
    const runs = await api.runs(sessionId);
    expect(runs.map((r) => r.status)).toEqual(['completed', 'input_required']);
  });
});
