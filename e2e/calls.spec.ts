// The calls inside a node (docs/playground-api.md, "Recorded calls"): the run view shows a
// model call's prompt and response as messages, and Replay starts a run answered from the
// recording, marked as such.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

describe('recorded calls in the run view', () => {
  const world = useStudioWorld();

  it("shows a model call's prompt and response under its node, and replays the run", async () => {
    const { page, screenshot } = world();
    const { composer, run } = await openNewSession(world());
    await composer.typeText('How do I reset my password?');
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    await run.spanRow('respond').locator('button').first().click();
    const calls = run.root.getByTestId('node-calls');
    await calls.waitFor();
    const call = calls.getByTestId('model-call').first();
    await call.locator('summary').first().click();
    const prompt = call.getByTestId('call-prompt');
    await prompt.waitFor();
    expect(await prompt.locator('[data-role="system"]').count()).toBe(1);
    expect(await prompt.locator('[data-role="human"]').first().textContent()).toContain('How do I reset my password?');
    expect((await call.getByTestId('call-response').textContent())?.length).toBeGreaterThan(10);
    await screenshot('40-model-call');

    const first = await run.root.getAttribute('data-run-id');
    await page.getByTestId('replay-run').click();
    await expect.poll(() => page.getByTestId('run-view').getAttribute('data-run-id')).not.toBe(first);
    await page.getByTestId('run-replayed').waitFor();
    await expect.poll(() => page.getByTestId('run-view').getAttribute('data-status')).toBe('completed');
  });
});
