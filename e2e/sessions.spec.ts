// Sessions: create from the UI, see the empty states, delete with confirmation; and the
// graph view. Screenshots of these screens go to test-results/screenshots/.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { StudioPage } from './pages/studio.ts';

describe('sessions', () => {
  const world = useStudioWorld();

  it('creates a session, which becomes selected and says what to do next', async () => {
    const { page, url, api, screenshot } = world();
    const studio = new StudioPage(page, url);
    await studio.open();
    await studio.byTestId('sessions-empty').waitFor();
    await studio.byTestId('no-session').waitFor();
    await screenshot('01-first-start');

    const sessionId = await studio.newSession();
    expect(sessionId).toMatch(/^ses_/);
    await studio.byTestId('session-empty').waitFor();
    await studio.byTestId('runs-empty').waitFor();
    expect((await api.sessions()).map((s) => s.session_id)).toEqual([sessionId]);
    await screenshot('02-new-session');

    // The selection survives a reload (URL hash).
    await page.reload();
    await studio.waitReady();
    expect(await studio.session(sessionId).getByTestId('session-select').getAttribute('aria-current')).toBe('true');
  });

  it('deletes a session only after confirmation', async () => {
    const { page, url, api } = world();
    const studio = new StudioPage(page, url);
    const keep = await api.createSession('Keep me');
    const drop = await api.createSession('Delete me');
    await studio.open();
    await expect.poll(() => studio.sessions().count()).toBe(2);

    // Cancelling the dialog keeps it.
    await studio.session(drop.session_id).getByTestId('session-delete').click();
    await studio.byTestId('confirm-cancel').click();
    expect(await studio.sessions().count()).toBe(2);

    await studio.deleteSession(drop.session_id);
    await expect.poll(() => studio.sessions().count()).toBe(1);
    expect((await api.sessions()).map((s) => s.session_id)).toEqual([keep.session_id]);
  });

  it('draws the agent graph with clickable nodes', async () => {
    const { page, url, api, screenshot } = world();
    // The studio serves the graph once its runtime is up (503 until then; a slow machine
    // can take more than the route's own 5 s wait).
    await expect.poll(async () => (await api.call('GET', '/graph')).status, { timeout: 60_000, interval: 250 }).toBe(200);
    const studio = new StudioPage(page, url);
    await studio.open();
    await studio.showView('graph');
    const nodes = page.getByTestId('graph-node');
    await nodes.first().waitFor({ timeout: 20_000 });
    const ids = await nodes.evaluateAll((els) => els.map((e) => e.getAttribute('data-node-id')));
    expect(ids).toEqual(expect.arrayContaining(['guardrail', 'router', 'skills', 'respond']));
    expect(await page.locator('[data-testid="graph-edge"].graph__edge--conditional').count()).toBeGreaterThan(0);

    await page.locator('[data-testid="graph-node"][data-node-id="respond"]').click();
    expect(await page.getByTestId('selected-node').textContent()).toBe('respond');
    expect(await page.getByTestId('node-details').textContent()).toContain('skills');
    await screenshot('07-graph');
  });
});
