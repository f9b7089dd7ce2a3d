// Accessibility audit of the main screens with axe-core (run in the page through the
// DevTools protocol, so the studio's CSP stays as it is): no serious or critical violation
// on the empty studio, a run's timeline, the conversation, the graph, the compare view and
// the bundle dialog and the connection dialog.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { StudioPage } from './pages/studio.ts';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

async function audit(page: Page, screen: string): Promise<void> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: Violation[] }> } }).axe;
    const result = await axe.run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations;
  })) as Violation[];
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const report = bad.map(
    (v) =>
      `${v.impact} ${v.id}: ${v.help} at ${v.nodes
        .slice(0, 3)
        .map((n) => n.target.join(' '))
        .join(', ')}`,
  );
  expect(report, `axe on ${screen}`).toEqual([]);
}

describe('accessibility', () => {
  const world = useStudioWorld();

  it('has no serious or critical axe violation on the main screens', async () => {
    const { page, url, api } = world();
    const studio = new StudioPage(page, url);
    await studio.open();
    await audit(page, 'the empty studio');

    const session = await api.createSession('Audit');
    const ids: string[] = [];
    for (const text of ['I want a refund for order ORD-12345', 'Where is my order ORD-23456?']) {
      const created = await api.createRun(session.session_id, { parts: [{ kind: 'text', text }] });
      ids.push(created.body.run_id);
      await api.waitForEnd(created.body.run_id);
    }
    await studio.open(`#/sessions/${session.session_id}/runs/${ids[0]}`);
    await page.getByTestId('final-output').waitFor();
    await audit(page, 'a run timeline');

    await page.getByTestId('session-mode-conversation').click();
    await page.getByTestId('turn').first().waitFor();
    await audit(page, 'the conversation');

    await studio.showView('graph');
    await page.getByTestId('graph-node').first().waitFor({ timeout: 30_000 });
    await audit(page, 'the graph');

    await studio.open(`#/sessions/${session.session_id}/compare?left=${ids[0]}&right=${ids[1]}`);
    await page.getByTestId('compare-result').waitFor();
    await audit(page, 'the compare view');

    await page.getByTestId('export-bundle').click();
    await page.getByTestId('export-dialog').waitFor();
    await audit(page, 'the export dialog');
    await page.keyboard.press('Escape');
    await page.getByTestId('export-dialog').waitFor({ state: 'hidden' });

    await page.getByTestId('connection-button').click();
    await page.getByTestId('connection-credential').check();
    await page.getByTestId('connection-value').waitFor();
    await audit(page, 'the connection dialog');
  });
});
