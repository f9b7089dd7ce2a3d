// Runs from the composer: a text+data message streams its deltas and ends with the stored
// final parts and scores; cancel; rerun.
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { useStudioWorld } from './fixtures.ts';
import type { RunPage } from './pages/run.ts';
import { openNewSession } from './pages/session.ts';

const TICKET = { schema: 'support.ticket/1', topic: 'order_status', orderId: 'ORD-23456' };

/** Samples the live output while the run streams; answers every distinct text seen. */
async function watchLiveText(page: Page, run: RunPage, until: () => Promise<boolean>): Promise<string[]> {
  const seen: string[] = [];
  while (!(await until())) {
    const t = await run.liveText();
    if (t && t !== seen.at(-1)) seen.push(t);
    await page.waitForTimeout(40);
  }
  return seen;
}

describe('runs', () => {
  const world = useStudioWorld();

  it('sends text + data, streams the deltas, then shows the final parts and scores', async () => {
    const { page, url, api, screenshot } = world();
    const { composer, run } = await openNewSession(world());

    await composer.typeText('Please check this ticket');
    // The declared contract is offered by /composer-schema; its id lands in the draft.
    const contractButton = page.locator('[data-testid="add-contract-part"][data-schema="support.ticket/1"]');
    await composer.openPanel('data');
    if (await contractButton.count()) {
      await composer.addContractPart('support.ticket/1');
      expect(await composer.editorText()).toContain('"schema": "support.ticket/1"');
    } else {
      await page.getByTestId('add-data-part').click();
    }
    await composer.setJson(JSON.stringify(TICKET, null, 2));
    await screenshot('03-composer-with-data');
    await composer.setMetadata({ userId: 'e2e-user', scriptedDelayMs: '120', scriptedChunks: '12' });
    // A small file, picked through the file input: sent as bytes, stored by hash.
    await composer.openPanel('files');
    await composer.root.getByTestId('file-input').setInputFiles({ name: 'note.txt', mimeType: 'text/plain', buffer: Buffer.from('hello from e2e\n') });
    await composer.root.getByTestId('attached-file').waitFor();
    await composer.sendWithShortcut();

    const runId = await run.waitForNewRun(null);
    // While it is active, Send is disabled and says why.
    await composer.blockedReason().waitFor();
    expect(await composer.sendButton().isDisabled()).toBe(true);

    // One read per check: reading the status twice could straddle queued -> preparing -> running.
    const seen = await watchLiveText(page, run, async () => !(await run.isActive()));
    const after = await api.run(runId);
    // the text grew on screen, delta by delta
    expect(
      seen.length,
      `live snapshots of ${runId} (${after.status} ${after.reason ?? ''}): ${JSON.stringify(after.output_parts).slice(0, 300)}`,
    ).toBeGreaterThanOrEqual(2);
    for (let i = 1; i < seen.length; i++) expect(seen[i].startsWith(seen[i - 1])).toBe(true);

    await run.waitForStatus('completed');
    await run.finalOutput().waitFor();
    // Screen readers heard the phases, ending with the run's final state (never the deltas).
    await expect.poll(() => page.getByTestId('announcer').textContent()).toBe('Run completed');
    const stored = await api.run(runId);
    expect(stored.input_parts.slice(0, 2)).toEqual([
      { kind: 'text', text: 'Please check this ticket' },
      { kind: 'data', data: TICKET },
    ]);
    expect(stored.input_parts[2]).toMatchObject({ kind: 'file', name: 'note.txt', size: 15, mime_type: 'text/plain' });
    const sha = (stored.input_parts[2] as { sha256: string }).sha256;
    await run.openSection('input-section');
    const filePart = run.root.locator(`[data-testid="part-file"][data-sha256="${sha}"]`);
    await filePart.waitFor();
    // The download link serves the stored bytes.
    const href = await filePart.getByTestId('part-file-download').getAttribute('href');
    const download = await fetch(new URL(href!, `${url}/`));
    expect(download.status).toBe(200);
    expect(await download.text()).toBe('hello from e2e\n');
    expect(stored.metadata).toMatchObject({ userId: 'e2e-user', scriptedDelayMs: 120, scriptedChunks: 12 });
    const finalText = await run.finalOutput().getByTestId('part-text').first().textContent();
    expect(finalText).toContain('ORD-23456');
    expect(await run.finalOutput().getByTestId('part-data').first().textContent()).toContain('support.answer/1');
    await expect.poll(() => run.scoreRows().count()).toBe(2);
    const evaluators = await run.scoreRows().evaluateAll((rows) => rows.map((r) => r.getAttribute('data-evaluator')));
    expect(evaluators.sort()).toEqual(['answer-completeness', 'tone']);
    expect(await composer.sendButton().isDisabled()).toBe(false);
    await run.streamSummary().waitFor();
    await run.root.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot('04-run-completed');

    await run.openSection('trace-section');
    const names = await run.traceEvents().evaluateAll((els) => els.map((e) => e.getAttribute('data-name')));
    expect(names).toEqual(expect.arrayContaining(['routing', 'guardrail', 'invoke.end']));
    await page.locator('[data-testid="trace-event"][data-name="routing"] summary').click();
    await run.root.getByTestId('trace-section').scrollIntoViewIfNeeded();
    await screenshot('05-run-trace');
  });

  it('cancels an active run', async () => {
    const { api } = world();
    const { studio, composer, run } = await openNewSession(world());
    await composer.typeText('Where is my order ORD-23456?');
    await composer.setMetadata({ scriptedDelayMs: '400', scriptedChunks: '40' });
    await composer.send();
    const runId = await run.waitForNewRun(null);
    await run.waitForStatus('running');
    await run.cancel();
    await run.waitForStatus('cancelled');
    expect(await run.banner().getAttribute('data-reason')).toBe('user_cancelled');
    expect((await api.run(runId)).status).toBe('cancelled');
    await studio.runItem(runId).locator('[data-status="cancelled"]').waitFor();
    // The slot is free again.
    await expect.poll(() => composer.sendButton().isDisabled()).toBe(false);
  });

  it('reruns a finished run as a new run with the same input', async () => {
    const { api } = world();
    const { studio, composer, run, sessionId } = await openNewSession(world());
    await composer.typeText('I want a refund for order ORD-12345');
    await composer.send();
    const first = await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    await run.rerun();
    const second = await run.waitForNewRun(first);
    await run.waitForStatus('completed');
    const [a, b] = [await api.run(first), await api.run(second)];
    expect(b.origin).toBe('rerun');
    expect(b.parent_run_id).toBe(first);
    expect(b.input_parts).toEqual(a.input_parts);
    expect(b.context_id).not.toBe(a.context_id);
    await expect.poll(async () => (await api.runs(sessionId)).length).toBe(2);
    await expect.poll(() => studio.runItems().count()).toBe(2);
    expect(await run.root.getByTestId('parent-run-link').count()).toBe(1);
  });
});
