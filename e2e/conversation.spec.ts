// The conversation flows: an input_required run resumed from the UI, and a page reload in
// the middle of a run that continues with no lost and no repeated delta.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';
import { StudioPage } from './pages/studio.ts';

describe('conversation', () => {
  const world = useStudioWorld();

  it('resumes an input_required run from the UI', async () => {
    const { api, screenshot } = world();
    const { studio, composer, run } = await openNewSession(world());

    await composer.typeText('I want a refund');
    await composer.send();
    const parentId = await run.waitForNewRun(null);
    await run.waitForStatus('input_required');
    const question = run.root.getByTestId('input-question');
    await question.waitFor();
    // The question is said once: in the banner, not again in the output below it.
    const asked = (await question.textContent())!;
    expect(await run.finalOutput().getByTestId('part-text').filter({ hasText: asked }).count()).toBe(0);
    await studio
      .runItem(await run.runId())
      .getByTestId('run-waiting')
      .waitFor();
    await screenshot('06-input-required');

    await run.reply();
    expect(await composer.mode()).toBe('resume');
    await composer.typeText('The order id is ORD-12345');
    await composer.send();
    const childId = await run.waitForNewRun(parentId);
    await run.waitForStatus('completed');
    expect(await composer.mode()).toBe('new');

    const [parent, child] = [await api.run(parentId), await api.run(childId)];
    expect(child.origin).toBe('resume');
    expect(child.parent_run_id).toBe(parentId);
    expect(child.context_id).toBe(parent.context_id);
    expect(child.task_id).toBe(parent.task_id);
    expect(await run.finalOutput().getByTestId('part-text').first().textContent()).toMatch(/refund/i);
    await studio.runItem(parentId).locator('[data-status="input_required"]').waitFor();
    // The answered question is no longer waiting.
    await studio.runItem(parentId).getByTestId('run-answered').waitFor();
  });

  it('reads a three-turn session as a conversation, each turn linked to its timeline', async () => {
    const { page, url, api, screenshot } = world();
    const sessionId = (await api.createSession()).session_id;
    const said = ['Where is my order ORD-23456?', 'I want a refund for order ORD-12345', 'How do I reset my password?'];
    const ids: string[] = [];
    for (const text of said) {
      const created = await api.createRun(sessionId, { parts: [{ kind: 'text', text }] });
      ids.push(created.body.run_id);
      await api.waitForEnd(created.body.run_id);
    }
    const studio = new StudioPage(page, url);
    await studio.open(`#/sessions/${sessionId}`);
    await page.getByTestId('session-mode-conversation').click();
    const turns = page.getByTestId('turn');
    await expect.poll(() => turns.count()).toBe(3);
    expect(await turns.evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')))).toEqual(ids);
    for (const [i, text] of said.entries()) {
      expect(await turns.nth(i).getByTestId('turn-user').textContent()).toContain(text);
      expect((await turns.nth(i).getByTestId('turn-output').textContent())?.length).toBeGreaterThan(10);
    }
    expect(await turns.nth(1).getByTestId('turn-output').textContent()).toContain('refund');
    await screenshot('08-conversation');
    await turns.nth(1).getByTestId('turn-open-run').click();
    await page.locator(`[data-testid="run-view"][data-run-id="${ids[1]}"]`).waitFor();
  });

  it('continues a run after a page reload with no lost or repeated delta', async () => {
    const { page, api, screenshot } = world();
    const { studio, composer, run } = await openNewSession(world());
    await composer.typeText('Where is my order ORD-23456?');
    await composer.setMetadata({ scriptedDelayMs: '150', scriptedChunks: '24' });
    await composer.send();
    const runId = await run.waitForNewRun(null);
    await expect
      .poll(
        async () =>
          Number(
            (await run
              .liveOutput()
              .getAttribute('data-delta-count')
              .catch(() => '0')) ?? 0,
          ),
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(3);

    await page.reload();
    await studio.waitReady();
    await run.waitForRun(runId);
    await run.liveOutput().waitFor();
    await screenshot('04a-run-streaming');

    // After the reload the stream replays, then goes live: every snapshot is a prefix of
    // the next, so nothing repeats and nothing is skipped.
    const seen: string[] = [];
    while (await run.isActive()) {
      const t = await run.liveText();
      if (t && t !== seen.at(-1)) seen.push(t);
      await page.waitForTimeout(40);
    }
    await run.waitForStatus('completed');
    expect(seen.length).toBeGreaterThanOrEqual(2);

    const events = await api.events(runId);
    const deltas = events.filter((e) => e.kind === 'output.delta');
    const full = deltas.map((e) => (e as { text: string }).text).join('');
    for (const s of seen) expect(full.startsWith(s)).toBe(true);
    // The UI counted each delta exactly once.
    await run.streamSummary().waitFor();
    expect(Number(await run.streamSummary().getAttribute('data-delta-count'))).toBe(deltas.length);
    expect(Number(await run.streamSummary().getAttribute('data-delta-chars'))).toBe(full.length);
    expect(new Set(deltas.map((e) => e.seq)).size).toBe(deltas.length);
  });
});
