// Conversation branches (docs/studio-ui.md, "Conversation branches"): on the example project,
// a three-turn conversation is branched at turn 2 from the transcript ("Edit", then "Send as
// branch"); the studio opens the branch, whose conversation is turn 1 and the edited turn with
// its answer, and the switcher at turn 2 moves between the original and the branch.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { StudioPage } from './pages/studio.ts';

const SAID = ['Where is my order ORD-12345?', 'I want a refund for order ORD-12345', 'How do I reset my password?'];
const EDITED = 'Where is my order ORD-23456?';

describe('conversation branches', () => {
  const world = useStudioWorld();

  it('branch a three-turn conversation at turn 2', async () => {
    const { page, url, api, screenshot } = world();
    const root = (await api.createSession('orders')).session_id;
    const ids: string[] = [];
    for (const text of SAID) {
      const created = await api.createRun(root, { parts: [{ kind: 'text', text }] });
      ids.push(created.body.run_id);
      await api.waitForEnd(created.body.run_id);
    }
    const studio = new StudioPage(page, url);
    await studio.open(`#/sessions/${root}`);
    await page.getByTestId('session-mode-conversation').click();
    const turns = page.getByTestId('turn');
    const transcript = page.getByTestId('transcript');
    await expect.poll(() => turns.count()).toBe(3);

    // Edit turn 2 and send it as a branch.
    const second = page.locator(`[data-testid="turn"][data-run-id="${ids[1]}"]`);
    await second.getByTestId('turn-edit-open').click();
    const editor = second.getByTestId('turn-edit-text');
    expect(await editor.inputValue()).toBe(SAID[1]);
    await editor.fill(EDITED);
    await screenshot('72-branch-edit');
    await second.getByTestId('turn-branch-send').click();

    // The branch opens: turn 1 (shared with the original), then the edited turn and its answer.
    await expect.poll(() => transcript.getAttribute('data-turns')).toBe('2');
    const branchTurn = turns.nth(1);
    await expect.poll(async () => (await branchTurn.getByTestId('turn-user').textContent()) ?? '').toContain(EDITED);
    await expect
      .poll(
        async () =>
          (await branchTurn
            .getByTestId('turn-output')
            .textContent()
            .catch(() => '')) ?? '',
        { timeout: 30_000 },
      )
      .toContain('ORD-23456');
    expect(await turns.nth(0).getAttribute('data-run-id')).toBe(ids[0]);
    const branch = (await branchTurn.getAttribute('data-session-id'))!;
    expect(branch).not.toBe(root);
    expect(await branchTurn.getByTestId('turn-version-label').textContent()).toBe('2 of 2');
    // The branch's run list (under the root in the sidebar) follows the run to its end.
    await studio
      .runItem((await branchTurn.getAttribute('data-run-id'))!)
      .locator('[data-status="completed"]')
      .waitFor();
    // The sidebar lists the root, with its branch counted, and keeps it selected.
    const rootItem = page.locator(`[data-testid="session-item"][data-session-id="${root}"]`);
    await expect.poll(() => rootItem.getByTestId('session-branches').getAttribute('data-count')).toBe('1');
    expect(await rootItem.getByTestId('session-select').getAttribute('aria-current')).toBe('true');
    expect(await page.locator(`[data-testid="session-item"][data-session-id="${branch}"]`).count()).toBe(0);
    await screenshot('73-branch-open');

    // Switch to the original: its three turns, turn 2 as it was ("1 of 2").
    await branchTurn.getByTestId('turn-version-prev').click();
    await expect.poll(() => transcript.getAttribute('data-turns')).toBe('3');
    const original = page.locator(`[data-testid="turn"][data-run-id="${ids[1]}"]`);
    expect(await original.getByTestId('turn-version-label').textContent()).toBe('1 of 2');
    expect(await original.getByTestId('turn-user').textContent()).toContain(SAID[1]);
    expect(await turns.evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')))).toEqual(ids);

    // And back to the branch.
    await original.getByTestId('turn-version-next').click();
    await expect.poll(() => transcript.getAttribute('data-turns')).toBe('2');
    expect(await turns.nth(1).getAttribute('data-session-id')).toBe(branch);
    expect((await api.call('GET', `/sessions/${branch}`)).body.branch_of).toMatchObject({ session_id: root, run_id: ids[1] });
  });
});
