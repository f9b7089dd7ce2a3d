// The evaluation bench in the browser (docs/studio-ui.md, Evals): a run becomes a case of a
// dataset in two clicks, the dataset runs as an experiment, the example's code changes so the
// case regresses, the dataset runs again, and the compare of the two experiments shows the
// regressed case, the changed file, and opens the case's run compare.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PROJECT, useStudioWorld } from './fixtures.ts';
import { audit } from './pages/axe.ts';
import { openNewSession } from './pages/session.ts';
import { projectStatus, waitProjectLoaded } from './pages/project.ts';

const PROJECT = resolve(import.meta.dirname, '..', 'test', '.tmp', `e2e-evals-${process.pid}`);
mkdirSync(PROJECT, { recursive: true });
cpSync(EXAMPLE_PROJECT, PROJECT, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });
const GRAPH = resolve(PROJECT, 'src/graph.ts');
const ORIGINAL = readFileSync(GRAPH, 'utf8');

describe('datasets and experiments', () => {
  afterAll(() => rmSync(PROJECT, { recursive: true, force: true }));
  const world = useStudioWorld({ studio: { projectDir: PROJECT }, restoreProject: true });

  it('adds a run to a dataset, runs it, regresses it with a code change, and opens the regressed case’s run compare', async () => {
    const { page, url, api, screenshot } = world();
    const created = await api.call('POST', '/datasets', { name: 'refunds', description: 'Refund requests' });
    expect(created.status).toBe(201);

    const { studio, composer, run } = await openNewSession(world());
    await composer.typeText('I want a refund for order ORD-12345');
    await composer.sendWithShortcut();
    const original = await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    // Each turn of the conversation offers it too.
    await page.getByTestId('session-mode-conversation').click();
    await page.locator(`[data-testid="turn"][data-run-id="${original}"]`).getByTestId('add-to-dataset').waitFor();
    await page.getByTestId('session-mode-run').click();

    // Two clicks: "Add to dataset", then Add (the dataset is picked).
    await run.root.getByTestId('add-to-dataset').click();
    const dialog = page.getByTestId('add-case-dialog');
    await dialog.waitFor();
    expect(await dialog.getByTestId('add-case-dataset').inputValue()).toBe('refunds');
    await dialog.getByTestId('add-case-confirm').click();
    const done = dialog.getByTestId('add-case-done');
    await done.waitFor();
    const caseId = (await done.getAttribute('data-case-id'))!;
    expect(await done.getAttribute('data-line')).toBe('2');
    // The reference can be loosened into assertions; this test keeps the exact one.
    await dialog.getByTestId('loosen').waitFor();
    await screenshot('50-add-to-dataset');
    await audit(page, 'the add-to-dataset dialog');
    await dialog.getByTestId('add-case-open-dataset').click();

    const dataset = page.locator('[data-testid="dataset-view"][data-dataset="refunds"]');
    await dataset.waitFor();
    await dataset.locator(`[data-testid="dataset-case"][data-case-id="${caseId}"]`).waitFor();
    expect(await dataset.locator(`[data-testid="dataset-case"][data-case-id="${caseId}"] [data-testid="dataset-case-assertions"]`).textContent()).toBe('1');
    await expect.poll(() => page.locator('[data-testid="dataset-item"][data-dataset="refunds"]').getAttribute('data-cases')).toBe('1');
    await audit(page, 'a dataset');

    // The first experiment: the case passes.
    await page.getByTestId('start-experiment-submit').click();
    const first = page.locator('[data-testid="experiment-view"][data-status="completed"]');
    await first.waitFor({ timeout: 60_000 });
    const firstId = (await first.getAttribute('data-experiment-id'))!;
    expect(await page.getByTestId('experiment-counts').getAttribute('data-passed')).toBe('1');
    await page.locator(`[data-testid="case-row"][data-case-id="${caseId}"][data-status="passed"]`).waitFor();
    await page.locator('[data-testid="assertion-bar"][data-label="matches_reference"][data-rate="1"]').waitFor();
    await screenshot('51-experiment');
    await audit(page, 'an experiment');

    // The author rewords the refund answer, on disk; the studio reloads the agent.
    const before = (await projectStatus(url)).fingerprint;
    writeFileSync(GRAPH, ORIGINAL.replace('Good news: your refund', 'Great news: your refund'));
    await waitProjectLoaded(url, before);

    // The second experiment on the changed code: the case fails, and says why.
    await page.locator('.exp__title button', { hasText: 'refunds' }).click();
    await dataset.waitFor();
    await page.getByTestId('start-experiment-submit').click();
    const second = page.locator(`[data-testid="experiment-view"][data-status="completed"]:not([data-experiment-id="${firstId}"])`);
    await second.waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('experiment-counts').getAttribute('data-failed')).toBe('1');
    await page.getByTestId('filter-failures').click();
    await page.locator(`[data-testid="case-row"][data-case-id="${caseId}"][data-status="failed"]`).getByTestId('case-open').click();
    await page.locator('[data-testid="case-assertion"][data-status="fail"]').waitFor();
    // The failing case opens its run (a run of the experiment's hidden session) in the run view.
    await page.getByTestId('case-open-run').click();
    await page.locator('[data-testid="run-view"][data-status="completed"]').waitFor();
    await studio.showView('evals');

    // The compare of the two experiments: the case regressed, src/graph.ts changed.
    await page.getByTestId('filter-since').selectOption(firstId);
    await page.getByTestId('experiment-compare-since').click();
    const compare = page.getByTestId('experiment-compare');
    await compare.waitFor();
    const regressed = compare.locator(`[data-testid="expcompare-case"][data-case-id="${caseId}"][data-verdict="regressed"]`);
    await regressed.waitFor();
    expect(await page.getByTestId('verdict-filter-regressed').getAttribute('data-count')).toBe('1');
    await compare.getByTestId('expcompare-files').getByText('src/graph.ts').waitFor();
    await screenshot('52-experiment-compare');
    await audit(page, 'the compare of two experiments');

    // One click to the run compare of the regressed case: its baseline run on the left.
    await regressed.getByTestId('expcompare-open-runs').click();
    await page.getByTestId('compare-result').waitFor();
    const left = await page.getByTestId('compare-left').inputValue();
    const right = await page.getByTestId('compare-right').inputValue();
    expect(left).not.toBe(right);
    expect(left).not.toBe(original);
    await page.locator('[data-testid="code-change"][data-path="src/graph.ts"][data-change="modified"]').waitFor();
    expect(await page.getByTestId('divergence-first').getAttribute('data-node')).toBe('respond');
    await studio.showView('evals');
    await compare.waitFor();
  });
});
