// The Graph tab's compact composer: a run sent from beside the graph is watched live on it,
// with the project's run options (the example's pace) shown as fields and sent as metadata.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { ComposerPage } from './pages/composer.ts';
import { openNewSession } from './pages/session.ts';

describe('graph tab composer', () => {
  const world = useStudioWorld();

  it('shows the run options with their defaults, sends them, and the graph shows the run live', async () => {
    const { page, api, screenshot } = world();
    const { studio, sessionId } = await openNewSession(world());
    await studio.showView('graph');
    const composer = new ComposerPage(page, 'compact-composer');
    await composer.root.waitFor();

    // The example declares its pace in agent.json: the fields start from the defaults.
    await expect.poll(() => composer.runOption('scriptedDelayMs').inputValue()).toBe('20');
    expect(await composer.runOption('scriptedChunks').inputValue()).toBe('6');
    await composer.runOption('scriptedDelayMs').fill('150');
    await composer.runOption('scriptedChunks').fill('40');
    await composer.typeText('How do I reset my password?');
    await screenshot('graph-composer-ready');
    await composer.send();

    // The graph stays in view and draws the run as it goes: `respond` is seen running.
    const node = (id: string) => page.locator(`[data-testid="graph-node"][data-node-id="${id}"]`);
    await node('respond').and(page.locator('[data-run-state="running"]')).waitFor({ timeout: 20_000 });
    expect(await page.getByTestId('main').getAttribute('data-view')).toBe('graph');
    await composer.blockedReason().waitFor();
    await screenshot('graph-composer-running');
    await node('respond').and(page.locator('[data-run-state="completed"]')).waitFor({ timeout: 30_000 });

    const [run] = await api.runs(sessionId);
    const stored = await api.run(run!.run_id);
    expect(stored.metadata).toMatchObject({ scriptedDelayMs: 150, scriptedChunks: 40 });
    expect(stored.input_parts).toEqual([{ kind: 'text', text: 'How do I reset my password?' }]);
  });

  it('refuses a run option outside its bounds and says why', async () => {
    const { page } = world();
    const { studio } = await openNewSession(world());
    await studio.showView('graph');
    const composer = new ComposerPage(page, 'compact-composer');
    await composer.runOption('scriptedChunks').waitFor();
    await composer.runOption('scriptedChunks').fill('0');
    await composer.typeText('How do I reset my password?');
    await composer.send();
    await expect.poll(() => composer.root.getByTestId('composer-problems').textContent()).toContain('scriptedChunks: must be at least 1');
  });
});
