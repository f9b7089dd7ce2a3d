// LangGraph's Send tasks as fan-out branches in the studio (docs/playground-api.md, "Breakpoints
// and stepping"; D-83), on test/fixtures/send-agent (plan -> score, one Send task per word ->
// collect): the timeline names each task `score[i]`; "Pause before" on the span of `score[1]`
// sets a breakpoint there; the next run pauses at that task alone, and Continue finishes with
// every task's output once. A run in step mode steps through the tasks one at a time.
import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

const REPO = resolve(import.meta.dirname, '..');
// A copy inside the repo (so 'agent-studio/sdk' resolves), never the fixture itself.
const PROJECT = join(REPO, 'test', '.tmp', `e2e-send-${process.pid}`);
cpSync(join(REPO, 'test', 'fixtures', 'send-agent'), PROJECT, { recursive: true });

describe('the debugger on Send tasks', () => {
  const world = useStudioWorld({ studio: { projectDir: PROJECT } });
  afterAll(() => rmSync(PROJECT, { recursive: true, force: true }));

  it('sets a breakpoint on one Send task from its span, pauses there alone, and continues', async () => {
    const { page, api, screenshot } = world();
    const { composer, run, sessionId } = await openNewSession(world());
    await composer.typeText('a b c');
    await composer.send();
    const first = await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    const rows = run.root.locator('[data-testid="span-row"][data-kind="branch"]');
    await expect
      .poll(async () => (await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-node')))).sort())
      .toEqual(['score[0]', 'score[1]', 'score[2]']);

    await run.root.locator('[data-testid="span-row"][data-node="score[1]"] button').first().click();
    const before = page.getByTestId('span-detail').getByTestId('breakpoint-before');
    await before.click();
    await expect.poll(() => before.getAttribute('aria-pressed')).toBe('true');
    await expect
      .poll(async () => (await api.call('GET', `/sessions/${sessionId}/breakpoints`)).body.items.map((b: { node: string }) => b.node))
      .toEqual(['score[1]']);
    await screenshot('95-breakpoint-on-a-send-task');

    await composer.typeText('a b c');
    await composer.send();
    const paused = await run.waitForNewRun(first);
    await run.waitForStatus('input_required');
    const bar = page.getByTestId('pause-bar');
    await bar.waitFor();
    expect(await bar.getAttribute('data-node')).toBe('score[1]');
    // The other tasks ran; the paused one is waiting.
    await expect.poll(() => run.root.locator('[data-testid="span-row"][data-node="score[0]"]').getAttribute('data-status')).toBe('completed');
    expect(await run.root.locator('[data-testid="span-row"][data-node="score[1]"]').getAttribute('data-status')).toBe('interrupted');

    await bar.getByTestId('pause-continue').click();
    const done = await run.waitForNewRun(paused);
    await run.waitForStatus('completed');
    const text = (await api.run(done)).output_parts.find((p) => p.kind === 'text') as { text: string } | undefined;
    expect(
      text?.text
        .replace(/^scored /, '')
        .split(',')
        .sort(),
    ).toEqual(['a!', 'b!', 'c!']);
    // Only the paused task ran in the continued run.
    await expect
      .poll(async () => run.root.locator('[data-testid="span-row"][data-kind="branch"]').evaluateAll((els) => els.map((e) => e.getAttribute('data-node'))))
      .toEqual(['score[1]']);
  });

  it('with “Pause before every node”, Step goes through the Send tasks one at a time, in order', async () => {
    const { page } = world();
    const { composer, run } = await openNewSession(world());
    await composer.typeText('a b c');
    await page.getByTestId('run-step-mode').check();
    await composer.send();
    const seen: string[] = [];
    let previous: string | null = null;
    for (let i = 0; i < 10; i++) {
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
    expect(seen).toEqual(['plan', 'score', 'score[0]', 'score[1]', 'score[2]', 'collect']);
  });
});
