// The state at every step: a finished run's State section lists its steps; choosing the step
// after `router` shows what it changed (the intents) and every channel, messages as messages.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

describe('state at every step', () => {
  const world = useStudioWorld();

  it("lists a run's steps and shows what a step changed and the whole state", async () => {
    const { screenshot } = world();
    const { composer, run } = await openNewSession(world());
    const text = 'I want a refund for order ORD-12345. Where is my order ORD-23456?';
    await composer.typeText(text);
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    const section = run.root.getByTestId('state-section');
    await section.locator('summary').click();
    const steps = section.getByTestId('state-step');
    await expect.poll(() => steps.count()).toBeGreaterThanOrEqual(5);
    // Input first; then one step per node, the router's writing the intents.
    expect(await steps.first().textContent()).toContain('Input');
    expect(await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-writes')))).toEqual(
      expect.arrayContaining(['guardrail', 'router', 'skills', 'respond']),
    );
    const afterRouter = section.locator('[data-testid="state-step"][data-writes="router"]');
    await afterRouter.click();
    expect(await afterRouter.getAttribute('aria-current')).toBe('step');
    const detail = section.locator(`[data-testid="state-detail"][data-checkpoint-id="${await afterRouter.getAttribute('data-checkpoint-id')}"]`);
    await detail.waitFor();
    const changes = detail.getByTestId('state-change');
    // The router added the two intents to an empty list.
    expect(await changes.evaluateAll((els) => els.map((e) => [e.getAttribute('data-op'), e.getAttribute('data-path')]))).toEqual([
      ['add', '/intents/0'],
      ['add', '/intents/1'],
    ]);
    expect(await changes.first().textContent()).toContain('refund');

    // Channels stay closed until opened; the messages read as messages.
    const messages = detail.locator('[data-testid="state-channel"][data-channel="messages"]');
    expect(await messages.getByTestId('state-channel-value').count()).toBe(0);
    await messages.locator('button').first().click();
    const human = messages.locator('[data-testid="state-messages"] li[data-type="human"]').last();
    expect(await human.textContent()).toContain(text);
    await screenshot('70-state-at-a-step');
  });
});
