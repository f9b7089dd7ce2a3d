// Inside a run: the node waterfall fills while the run streams, a span opens on its state
// update, the graph overlays a run's path (and a failing run's failed node), and a cancelled
// run keeps its partial text.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

describe('run inspector', () => {
  const world = useStudioWorld();

  it('fills the waterfall live, opens a span on its update, and draws the path on the graph', async () => {
    const { page, screenshot } = world();
    const { studio, composer, run } = await openNewSession(world());
    await composer.typeText('I want a refund for order ORD-12345. Where is my order ORD-23456?');
    await composer.setMetadata({ scriptedDelayMs: '60', scriptedChunks: '200' });
    await composer.send();
    await run.waitForNewRun(null);

    // While the answer streams, the finished nodes are there and `respond` is running.
    await run.root.locator('[data-testid="span-row"][data-node="respond"][data-status="running"]').waitFor({ timeout: 20_000 });
    expect(await run.status()).toBe('running');
    for (const node of ['guardrail', 'router', 'skills']) expect(await run.spanRow(node).getAttribute('data-status')).toBe('completed');
    expect(await run.root.locator('[data-testid="span-row"][data-kind="branch"]').count()).toBe(2);
    await screenshot('10-waterfall-live');

    await run.waitForStatus('completed');
    await expect.poll(() => run.spanRow('respond').getAttribute('data-status')).toBe('completed');
    await run.spanRow('router').locator('button').click();
    const detail = run.root.getByTestId('span-detail');
    await detail.waitFor();
    expect(await detail.getByTestId('span-update').textContent()).toContain('refund');
    await screenshot('11-span-detail');

    await studio.showView('graph');
    const node = (id: string) => page.locator(`[data-testid="graph-node"][data-node-id="${id}"]`);
    await node('respond').and(page.locator('[data-run-state="completed"]')).waitFor();
    for (const id of ['guardrail', 'router', 'skills']) expect(await node(id).getAttribute('data-run-state')).toBe('completed');
    expect(await node('router').getByTestId('graph-node-order').textContent()).toBe('2');
    await screenshot('12-graph-run-path');
  });

  it('marks the failed node of a failing run on the timeline and the graph', async () => {
    const { page, screenshot } = world();
    const { studio, composer, run } = await openNewSession(world());
    await composer.typeText('Refund order ORD-00000 please');
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('failed');
    const failed = run.root.locator('[data-testid="span-row"][data-kind="node"][data-status="failed"]');
    await failed.waitFor();
    expect(await failed.getAttribute('data-node')).toBe('skills');
    await failed.locator('button').click();
    expect(await run.root.getByTestId('span-error-source').textContent()).toMatch(/^src\/skills\.ts:\d+:\d+$/);
    await screenshot('13-failed-span');

    await studio.showView('graph');
    await page.locator('[data-testid="graph-node"][data-node-id="skills"][data-run-state="failed"]').waitFor();
    expect(await page.locator('[data-testid="graph-node"][data-node-id="respond"]').getAttribute('data-run-state')).toBe('unreached');
  });

  it('keeps the partial text of a cancelled run, marked partial, with its spans, all ended cancelled', async () => {
    const { page, screenshot } = world();
    const { studio, composer, run } = await openNewSession(world());
    await composer.typeText('I want a refund for order ORD-12345');
    await composer.setMetadata({ scriptedDelayMs: '150', scriptedChunks: '200' });
    await composer.send();
    await run.waitForNewRun(null);
    await expect.poll(async () => (await run.liveText()).length, { timeout: 20_000 }).toBeGreaterThan(5);
    await run.cancel();
    await run.waitForStatus('cancelled');
    const partial = run.finalOutput().locator('[data-testid="part-text"][data-partial="true"]');
    await partial.waitFor();
    expect(await partial.getByTestId('partial-badge').count()).toBe(1);
    expect((await partial.textContent())!.length).toBeGreaterThan(20);
    expect(await run.spanRow('respond').count()).toBe(1);
    await screenshot('14-cancelled-partial');

    // Every span ended with the run (docs/runtime-traces.md "When a run ends"), the Complete
    // step says cancelled, and the output does not promise a final answer; so after a reload.
    const runId = await run.runId();
    const ended = async () => {
      await expect.poll(() => run.spanRow('respond').getAttribute('data-status')).toBe('cancelled');
      expect(await run.root.locator('[data-testid="span-row"][data-status="running"]').count()).toBe(0);
      expect(await run.phase('complete').getAttribute('data-status')).toBe('cancelled');
      expect(await run.phase('complete').textContent()).toContain('cancelled');
      expect(await run.streamSummary().textContent()).toMatch(/^Streamed live as \d+ chunks? before the run ended cancelled; it has no final answer\.$/);
      await studio.showView('graph');
      const respond = page.locator('[data-testid="graph-node"][data-node-id="respond"]');
      await expect.poll(() => respond.getAttribute('data-run-state'), { timeout: 20_000 }).toBe('cancelled');
      expect(await page.locator('[data-testid="graph-node"][data-run-state="running"]').count()).toBe(0);
      await studio.showView('run');
    };
    await ended();
    await page.reload();
    await studio.waitReady();
    await run.waitForRun(runId);
    await run.waitForStatus('cancelled');
    await ended();
  });
});
