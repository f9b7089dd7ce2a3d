// One active run per project (spec 8): a second run started while one is active is answered
// 409 active_run_conflict, and the UI says so and keeps Send disabled until it ends.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { ComposerPage } from './pages/composer.ts';
import { StudioPage } from './pages/studio.ts';

describe('active run conflict', () => {
  const world = useStudioWorld();

  it('shows the 409 when a second run is started while one is active', async () => {
    const { page, url, api, screenshot } = world();
    const studio = new StudioPage(page, url);
    const composer = new ComposerPage(page);

    // A run started elsewhere (another window, a script) holds the project's slot.
    const other = await api.createSession('Started by a script');
    const started = await api.createRun(other.session_id, {
      parts: [{ kind: 'text', text: 'Where is my order ORD-23456?' }],
      metadata: { scriptedDelayMs: 300, scriptedChunks: 60 },
    });
    expect(started.status).toBe(202);
    const activeRunId = started.body.run_id;
    // The API itself refuses a second one.
    const second = await api.createRun(other.session_id, { parts: [{ kind: 'text', text: 'hello' }] });
    expect(second.status).toBe(409);
    expect(second.body.detail).toMatchObject({ error: 'active_run_conflict', active_run_id: activeRunId });

    await studio.open();
    const mine = await studio.newSession();
    expect(mine).not.toBe(other.session_id);
    await composer.typeText('Hello there');
    await composer.send();

    const banner = composer.conflictBanner();
    await banner.waitFor();
    expect(await banner.getAttribute('data-active-run-id')).toBe(activeRunId);
    expect(await banner.textContent()).toContain(activeRunId);
    await composer.blockedReason().waitFor();
    expect(await composer.sendButton().isDisabled()).toBe(true);
    // The draft is kept for when the slot frees up.
    expect(await composer.root.getByTestId('composer-text').inputValue()).toBe('Hello there');
    await screenshot('08-conflict-409');

    // When the other run ends, Send works again.
    await api.cancel(activeRunId);
    await expect.poll(() => composer.sendButton().isDisabled(), { timeout: 10_000 }).toBe(false);
    expect(await banner.count()).toBe(0);
  });
});
