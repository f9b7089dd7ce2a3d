// Compare in the browser: change the example's code, rerun, and "Compare with the original"
// shows in one view the changed file with its diff, the node where the runs diverged, the
// text diff, the data paths that changed and the score deltas; two runs ticked in the
// sidebar compare too.
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EXAMPLE_PROJECT, useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

const PROJECT = resolve(import.meta.dirname, '..', 'test', '.tmp', `e2e-compare-${process.pid}`);
mkdirSync(PROJECT, { recursive: true });
cpSync(EXAMPLE_PROJECT, PROJECT, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });
const GRAPH = resolve(PROJECT, 'src/graph.ts');
const ORIGINAL = readFileSync(GRAPH, 'utf8');

describe('compare runs', () => {
  // Registered before the world's hooks, so it runs after the studio closed (after-all
  // hooks run in reverse order).
  afterAll(() => rmSync(PROJECT, { recursive: true, force: true }));
  // Each test starts on the original files (the fixture saves them back between tests).
  const world = useStudioWorld({ studio: { projectDir: PROJECT }, restoreProject: true });

  it('reruns after a code change and shows the changed file with its diff, the divergence node, the text and data diffs and the score deltas', async () => {
    const { page, screenshot } = world();
    const { studio, composer, run } = await openNewSession(world());
    await composer.typeText('I want a refund for order ORD-12345');
    await composer.sendWithShortcut();
    const original = await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    // The author changes the answer's wording and adds a field to its data, on disk.
    writeFileSync(
      GRAPH,
      ORIGINAL.replace('Good news: your refund', 'Great news: your refund').replace('intents: state.intents,', 'intents: state.intents, reviewed: true,'),
    );
    await run.root.getByTestId('rerun-run').click();
    const rerun = await run.waitForNewRun(original);
    await run.waitForStatus('completed');
    await run.root.getByTestId('compare-original').click();

    const view = page.getByTestId('compare-view');
    await view.waitFor();
    const result = page.getByTestId('compare-result');
    await result.waitFor();
    expect(await page.getByTestId('compare-left').inputValue()).toBe(original);
    expect(await page.getByTestId('compare-right').inputValue()).toBe(rerun);
    // What changed in the code, beside what changed in the answer.
    await page.locator('[data-testid="code-change"][data-path="src/graph.ts"][data-change="modified"]').waitFor();
    // Where the runs diverged: the node that wrote the answer.
    const first = page.getByTestId('divergence-first');
    expect(await first.getAttribute('data-node')).toBe('respond');
    await page.locator('[data-testid="divergence-path"][data-path="/response/text"]').waitFor();
    // The text diff, with the changed word highlighted on each side.
    const diff = page.getByTestId('text-diff').first();
    await diff.waitFor();
    expect(await diff.locator('mark.diff__word--del').allTextContents()).toContain('Good');
    expect(await diff.locator('mark.diff__word--ins').allTextContents()).toContain('Great');
    await page.getByTestId('diff-mode-split').click();
    await page.locator('[data-testid="text-diff"][data-mode="split"] .diff__split').first().waitFor();
    // The data path that appeared.
    await page.locator('[data-testid="path-row"][data-path="/reviewed"][data-op="add"]').waitFor();
    // Every evaluator with its delta.
    const rows = page.getByTestId('score-diff-row');
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.getByTestId('score-delta').count()).toBe(2);
    await screenshot('30-compare');

    // The changed file's diff between the runs, the changed words marked, in the layout chosen.
    const change = page.locator('[data-testid="code-change"][data-path="src/graph.ts"]');
    const codeDiff = change.getByTestId('code-diff');
    await codeDiff.locator('mark.diff__word--ins').first().waitFor();
    expect(await codeDiff.locator('mark.diff__word--del').allTextContents()).toContain('Good');
    expect(await codeDiff.locator('mark.diff__word--ins').allTextContents()).toContain('Great');
    expect(await codeDiff.getAttribute('data-mode')).toBe('split');
    await page.getByTestId('code-diff-mode-inline').click();
    await change.locator('[data-testid="code-diff"][data-mode="inline"]').waitFor();
    await change.getByTestId('code-diff-toggle').click();
    await codeDiff.waitFor({ state: 'detached' });
    await change.getByTestId('code-diff-toggle').click();
    await codeDiff.waitFor();
    // The file as the left run had it opens read-only, with nothing offering to save it.
    await change.getByTestId('code-open-left').click();
    await page.locator(`[data-testid="source-view"][data-read-only="true"][data-active-file="src/graph.ts@${original}"]`).waitFor();
    await page.getByTestId('source-at-run').waitFor();
    expect(await page.getByTestId('source-save').count()).toBe(0);
    expect(await page.getByTestId('source-save-hint').count()).toBe(0);
    await studio.showView('compare');
    await result.waitFor();

    // The divergence opens the node's span in the rerun's timeline.
    await page.getByTestId('divergence-span-right').click();
    await page.locator(`[data-testid="run-view"][data-run-id="${rerun}"]`).waitFor();
    await page.locator('[data-testid="span-row"][data-node="respond"] > button.waterfall__row[aria-expanded="true"]').waitFor();
  });

  it('compares two runs ticked in the sidebar, the older as the baseline, with options remembered', async () => {
    const { page } = world();
    const { composer, run } = await openNewSession(world());
    await composer.typeText('I want a refund for order ORD-12345');
    await composer.sendWithShortcut();
    const first = await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    await composer.typeText('Where is my order ORD-23456?');
    await composer.sendWithShortcut();
    const second = await run.waitForNewRun(first);
    await run.waitForStatus('completed');

    await page.locator(`[data-testid="run-pick"][data-run-id="${second}"]`).check();
    await page.locator(`[data-testid="run-pick"][data-run-id="${first}"]`).check();
    await page.getByTestId('compare-picked').click();
    await page.getByTestId('compare-result').waitFor();
    expect(await page.getByTestId('compare-left').inputValue()).toBe(first);
    expect(await page.getByTestId('compare-right').inputValue()).toBe(second);
    expect(await page.getByTestId('divergence-first').getAttribute('data-node')).toBe('router');

    // Ignoring the intents hides them from the data paths, and the choice survives a reload.
    await page.locator('[data-testid="compare-options"] summary').click();
    await page.getByTestId('compare-ignore').fill('/intents/*');
    await page.getByTestId('compare-ignore').press('Enter');
    await expect.poll(() => page.locator('[data-testid="path-row"][data-path="/intents/0"]').count()).toBe(0);
    await page.reload();
    await page.getByTestId('compare-result').waitFor();
    await page.locator('[data-testid="compare-options"] summary').click();
    expect(await page.getByTestId('compare-ignore').inputValue()).toBe('/intents/*');
  });
});
