// One fact, one answer on every frame: the open session's run count and its run list, the
// run view's status, the composer's Send and the sidebar's run entry agree from the frame a
// run changes state on (the stream and the queries are written in one render), checked by a
// watcher on each animation frame. And the layout: the sessions column collapses and stays
// so after a reload, leaving the source view its width.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { contradictions, watchFrames } from './pages/frames.ts';
import { deliverWhole, holdReplies } from './pages/hold.ts';
import { openNewSession } from './pages/session.ts';

const API = '/api/playground/v1';
const ACTIVE = ['queued', 'preparing', 'running'];

describe('consistency', () => {
  const world = useStudioWorld();

  // The two orders below are forced, not waited for: a reply is held back until the page has
  // drawn what must come first (docs/studio-ui.md, one fact one answer).
  it('the session list answering before the run list: the open session never counts a run its list does not show', async () => {
    const { page } = world();
    await watchFrames(page);
    const { studio, composer, sessionId } = await openNewSession(world());
    const open = studio.session(sessionId);
    await open.getByTestId('runs-empty').waitFor();
    const runLists = await holdReplies(page, new RegExp(`${API}/sessions/${sessionId}/runs(\\?|$)`));

    await composer.typeText('I want a refund');
    await composer.send();
    // The session list's reply after the send (titled by the first message, run_count 1) is
    // drawn while every run list reply read since is still held.
    await open.getByTestId('session-select').filter({ hasText: 'I want a refund' }).waitFor();
    const shown = await open.evaluate((el) => ({
      count: Number(/(\d+) runs?\b/.exec(el.querySelector('.session__meta')?.textContent ?? '')?.[1]),
      empty: el.querySelector('[data-testid="runs-empty"]') !== null,
    }));
    expect(runLists.bodies.length).toBeGreaterThan(0);
    expect(shown).toEqual({ count: 0, empty: true });

    runLists.release();
    await open.getByTestId('run-item').waitFor();
    expect(await open.getByTestId('session-run-count').getAttribute('data-count')).toBe('1');
    expect((await contradictions(page)).seen).toEqual([]);
  });

  it("the run's first detail reply arriving after the stream said input_required: Send is free when the run view shows it", async () => {
    const { page } = world();
    await watchFrames(page);
    const { composer, run } = await openNewSession(world());
    const details = await holdReplies(page, new RegExp(`${API}/runs/[^/?]+(\\?|$)`));
    await deliverWhole(page, new RegExp(`${API}/runs/[^/?]+/events(\\?|$)`));

    await composer.typeText('I want a refund');
    await composer.send();
    // The whole stream, up to input_required, has been applied (the live region says the run's
    // last phase) while the run's detail, read when the run was still active, is held.
    await page.getByTestId('announcer').filter({ hasText: 'Run input required' }).waitFor({ state: 'attached' });
    const read = details.bodies.map((b) => (b as { status?: string } | null)?.status);
    expect(read.some((s) => s !== undefined && ACTIVE.includes(s))).toBe(true);

    details.release();
    await run.waitForStatus('input_required');
    expect(await composer.blockedReason().count()).toBe(0);
    expect(await composer.sendButton().isDisabled()).toBe(false);
    expect((await contradictions(page)).seen).toEqual([]);
  });

  it('a first send, an input_required run and its reply never show contradicting states', async () => {
    const { page } = world();
    await watchFrames(page);
    // The races need a reply that was read before a change to arrive after it: the real
    // replies of the run lists and run details are held back 300 ms on their way to the page
    // (read at once, handed over later), so the window is there on every run of the test.
    await page.route(/\/api\/playground\/v1\/(sessions\/[^/]+\/runs|runs\/[^/?]+)(\?|$)/, async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const response = await route.fetch();
      await new Promise((r) => setTimeout(r, 300));
      await route.fulfill({ response });
    });
    const { studio, composer, run } = await openNewSession(world());
    await page.getByTestId('runs-empty').waitFor();

    await composer.typeText('I want a refund');
    await composer.send();
    const parentId = await run.waitForNewRun(null);
    await run.waitForStatus('input_required');
    // At that moment: Send no longer says the run is running, the list says input_required.
    expect(await composer.blockedReason().count()).toBe(0);
    await page.locator(`[data-testid="run-item"][data-run-id="${parentId}"][data-status="input_required"]`).waitFor();
    expect(await page.getByTestId('runs-empty').count()).toBe(0);
    expect(await page.getByTestId('session-run-count').first().getAttribute('data-count')).toBe('1');

    await run.reply();
    await composer.typeText('The order id is ORD-12345');
    await composer.send();
    const childId = await run.waitForNewRun(parentId);
    await run.waitForStatus('completed');
    expect(await composer.blockedReason().count()).toBe(0);
    await page.locator(`[data-testid="run-item"][data-run-id="${childId}"][data-status="completed"]`).waitFor();

    // The same after a reload: the stream replays the run's whole history.
    await page.reload();
    await studio.waitReady();
    await run.waitForStatus('completed');
    await studio.runItem(childId).waitFor();
    const watched = await contradictions(page);
    expect(watched.frames).toBeGreaterThan(10);
    expect(watched.seen).toEqual([]);
  });

  it('the sessions column collapses, stays collapsed after a reload, and gives the source view its width', async () => {
    const { page } = world();
    const { studio } = await openNewSession(world());
    await studio.showView('source');
    await page.locator('[data-testid="source-file"][data-path="src/graph.ts"]').click();
    await page.locator('[data-testid="source-view"][data-active-file="src/graph.ts"]').waitFor();
    const sidebar = page.getByTestId('sidebar');
    const editor = page.getByTestId('source-editor');
    const open = { sidebar: (await sidebar.boundingBox())!.width, editor: (await editor.boundingBox())!.width };

    await page.getByTestId('sidebar-toggle').click();
    await page.locator('[data-testid="sidebar"][data-collapsed="true"]').waitFor();
    const closed = { sidebar: (await sidebar.boundingBox())!.width, editor: (await editor.boundingBox())!.width };
    expect(closed.sidebar).toBeLessThan(60);
    expect(closed.editor).toBeGreaterThanOrEqual(open.editor + open.sidebar - closed.sidebar - 2);
    // File names are shown whole once the column is out of the way.
    const cut = await page
      .getByTestId('source-file')
      .evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.getAttribute('data-path')));
    expect(cut).toEqual([]);

    await page.reload();
    await studio.waitReady();
    await page.locator('[data-testid="sidebar"][data-collapsed="true"]').waitFor();
    await page.getByTestId('sidebar-toggle').click();
    await page.locator('[data-testid="sidebar"][data-collapsed="false"]').waitFor();
    await studio.session((await page.getByTestId('session-item').first().getAttribute('data-session-id'))!).waitFor();
  });
});
