// Accessibility audit of the main screens with axe-core (run in the page through the
// DevTools protocol, so the studio's CSP stays as it is): no serious or critical violation
// on the empty studio, a run's timeline, the conversation, the graph, the compare view and
// the bundle dialog and the connection dialog.
import { describe, it } from 'vitest';
import { audit } from './pages/axe.ts';
import { useStudioWorld } from './fixtures.ts';
import { StudioPage } from './pages/studio.ts';

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
