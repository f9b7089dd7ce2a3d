// Bundles in the browser: one author exports a session (a file download), a teammate's
// fresh studio shows the import plan first, imports it and opens the imported run with its
// answer and file intact; a damaged bundle shows each problem and imports nothing. An
// experiment goes along with its dataset: the plan says so and the teammate lands on it.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startStudio } from '../src/main/studio/studio.ts';
import { EXAMPLE_PROJECT, useStudioWorld } from './fixtures.ts';
import { audit } from './pages/axe.ts';
import { openNewSession } from './pages/session.ts';
import { StudioPage } from './pages/studio.ts';

describe('bundles', () => {
  const world = useStudioWorld();

  it('exports a session, and a fresh studio imports it after showing the plan', async () => {
    const { page, api, screenshot } = world();
    const { composer, run, sessionId } = await openNewSession(world());
    await composer.typeText('I want a refund for order ORD-12345');
    await composer.openPanel('files');
    await composer.root.getByTestId('file-input').setInputFiles({ name: 'receipt.txt', mimeType: 'text/plain', buffer: Buffer.from('receipt 42\n') });
    await composer.root.getByTestId('attached-file').waitFor();
    await composer.sendWithShortcut();
    const runId = await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    const original = await api.run(runId);

    // Export: the open session is ticked; the dialog says to review before sharing.
    await page.getByTestId('export-bundle').click();
    const dialog = page.getByTestId('export-dialog');
    expect(await dialog.locator(`[data-testid="export-session"][data-session-id="${sessionId}"]`).isChecked()).toBe(true);
    await dialog.getByTestId('export-review').waitFor();
    // A sentence stays one text around its inline code: the words before `[redacted]` fill
    // the line rather than standing in a column of their own.
    const review = dialog.getByTestId('export-review');
    const lead = await review.evaluate((p) => {
      const range = p.ownerDocument.createRange();
      range.selectNodeContents(p.firstChild!);
      return { text: range.getBoundingClientRect().width, box: p.clientWidth };
    });
    expect(lead.text).toBeGreaterThan(lead.box * 0.6);
    // A session made here carries no imported mark.
    expect(await page.getByTestId('session-imported').count()).toBe(0);
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('export-confirm').click()]);
    expect(download.suggestedFilename()).toBe('support-desk.agentbundle.json');
    const dir = await mkdtemp(join(tmpdir(), 'agent-studio-e2e-bundle-'));
    const file = join(dir, 'shared.agentbundle.json');
    await download.saveAs(file);
    await dialog.getByTestId('export-saved').waitFor();
    await screenshot('40-export');

    // The teammate: another studio, its own empty data folder.
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-studio-e2e-teammate-'));
    const teammate = await startStudio({ projectDir: EXAMPLE_PROJECT, dataDir, port: 0, runtimeCommand: false, logger: pino({ level: 'warn' }) });
    try {
      const studio = new StudioPage(page, teammate.url.replace(/\/$/, ''));
      await studio.open();
      // A damaged copy first: every problem listed, nothing imported.
      const damaged = JSON.parse(await readFile(file, 'utf8'));
      damaged.runs[0].session_id = 'ses_missing';
      const bad = join(dir, 'damaged.agentbundle.json');
      await writeFile(bad, JSON.stringify(damaged));
      await page.getByTestId('import-bundle').click();
      const imp = page.getByTestId('import-dialog');
      await imp.getByTestId('import-file').setInputFiles(bad);
      await imp.locator('[data-testid="import-problem"][data-path="/runs/0/session_id"]').waitFor();
      expect(await imp.getByTestId('import-confirm').isDisabled()).toBe(true);

      // The real one: the plan, then the import, landing on the imported session.
      await imp.getByTestId('import-file').setInputFiles(file);
      await imp.getByTestId('import-plan').waitFor();
      expect(await imp.getByTestId('plan-sessions').textContent()).toContain('1 session and 1 run');
      await screenshot('41-import-plan');
      await imp.getByTestId('import-confirm').click();
      await page.getByTestId('run-view').waitFor();
      await page.getByTestId('run-imported').waitFor();
      expect(await page.getByTestId('run-imported').textContent()).toContain('support-desk');
      // The sidebar marks the imported session too, saying where it came from.
      const mark = page.locator('[data-testid="session-item"]:has([aria-current="true"]) [data-testid="session-imported"]');
      await mark.waitFor();
      expect(await mark.getAttribute('title')).toContain('from support-desk');
      const finalText = await page.getByTestId('final-output').getByTestId('part-text').first().textContent();
      expect(finalText).toBe((original.output_parts[0] as { text: string }).text);
      // The file came along, byte for byte.
      const sha = (original.input_parts[1] as { sha256: string }).sha256;
      const bytes = await (await fetch(`${teammate.url}api/playground/v1/blobs/${sha}`)).text();
      expect(bytes).toBe('receipt 42\n');
      await screenshot('42-imported-run');
    } finally {
      await teammate.close();
      await rm(dir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('shares an experiment with its dataset: the plan lists both, the teammate lands on the experiment', async () => {
    const { page, url, api, screenshot } = world();
    const started = await api.call('POST', '/experiments', { dataset: 'support', cases: ['refund-approved', 'refund-denied-window'] });
    expect(started.status).toBe(202);
    const id = started.body.experiment_id as string;
    await expect.poll(async () => (await api.call('GET', `/experiments/${id}`)).body.status, { timeout: 60_000 }).toBe('completed');

    await new StudioPage(page, url).open();
    await page.getByTestId('export-bundle').click();
    const dialog = page.getByTestId('export-dialog');
    for (const box of await dialog.getByTestId('export-session').all()) await box.uncheck();
    await dialog.locator(`[data-testid="export-experiment"][data-experiment-id="${id}"]`).check();
    expect(await dialog.getByTestId('export-with-datasets').isChecked()).toBe(true);
    await audit(page, 'the export dialog with an experiment');
    expect(await dialog.getByTestId('export-confirm').textContent()).toBe('Export 0 sessions and 1 experiment');
    const dir = await mkdtemp(join(tmpdir(), 'agent-studio-e2e-bundle-'));
    const file = join(dir, 'experiment.agentbundle.json');
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('export-confirm').click()]);
    await download.saveAs(file);
    const bundle = JSON.parse(await readFile(file, 'utf8'));
    expect(bundle.datasets.map((d: { name: string }) => d.name)).toEqual(['support']);
    expect(bundle.experiments.map((e: { experiment_id: string }) => e.experiment_id)).toEqual([id]);

    // The teammate has the same project: the dataset is already there, nothing is written.
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-studio-e2e-teammate-'));
    const teammate = await startStudio({ projectDir: EXAMPLE_PROJECT, dataDir, port: 0, runtimeCommand: false, logger: pino({ level: 'warn' }) });
    try {
      await new StudioPage(page, teammate.url.replace(/\/$/, '')).open();
      await page.getByTestId('import-bundle').click();
      const imp = page.getByTestId('import-dialog');
      await imp.getByTestId('import-file').setInputFiles(file);
      await imp.getByTestId('import-plan').waitFor();
      expect(await imp.getByTestId('plan-experiments').textContent()).toContain('1 experiment with 2 case results');
      expect(await imp.getByTestId('plan-dataset').getAttribute('data-action')).toBe('identical');
      await screenshot('43-import-plan-experiment');
      await audit(page, 'the import plan of an experiment');
      await imp.getByTestId('import-confirm').click();
      const view = page.locator('[data-testid="experiment-view"][data-status="completed"]');
      await view.waitFor();
      expect(await view.getAttribute('data-experiment-id')).not.toBe(id);
    } finally {
      await teammate.close();
      await rm(dir, { recursive: true, force: true });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
