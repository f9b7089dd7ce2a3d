// Tokens and cost in the run view (docs/studio-ui.md "Tokens and cost"): a project whose model
// is a local server speaking the OpenAI chat-completions protocol (100 prompt and 4 completion
// tokens a call, priced by the project's `pricing`): the run header says the run's tokens and
// cost, and each node's row in the waterfall its share.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../test/integration/helpers/fake-openai.ts';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';
import { audit } from './pages/axe.ts';
import { projectStatus, waitProjectLoaded } from './pages/project.ts';

const REPO = resolve(import.meta.dirname, '..');
const PROJECT = join(REPO, 'test/.tmp', `cost-e2e-${Math.random().toString(36).slice(2, 10)}`);
cpSync(join(REPO, 'test/fixtures/cost-agent'), PROJECT, { recursive: true });

describe('tokens and cost in the run view', () => {
  let fake: FakeOpenAi;
  // Registered before the world's hooks, so the model server and .env exist when the studio starts.
  beforeAll(async () => {
    fake = await startFakeOpenAi();
    writeFileSync(join(PROJECT, '.env'), `OPENAI_BASE_URL=${fake.url}\nOPENAI_API_KEY=k\nOPENAI_MODEL=priced-model\nMODEL_MAX_RETRIES=0\n`);
  });
  const world = useStudioWorld({ studio: { projectDir: PROJECT } });
  afterAll(async () => {
    await fake?.close();
    rmSync(PROJECT, { recursive: true, force: true });
  });

  it("shows the run's tokens and cost in its header and each node's share on the timeline", async () => {
    const { page, screenshot } = world();
    const { composer, run } = await openNewSession(world());
    await composer.typeText('How much does this cost?');
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    const header = page.getByTestId('run-usage');
    await expect.poll(() => header.textContent()).toBe('416 tokens · $0.000432');
    // The session sums its runs.
    await expect.poll(() => page.getByTestId('session-usage').textContent()).toBe('Session: 416 tokens · $0.000432');
    const usage = (node: string) => run.spanRow(node).getByTestId('span-usage');
    await expect.poll(() => usage('fan').getAttribute('data-share')).toBe('0.5000');
    expect(await usage('plan').textContent()).toBe('104 tok · $0.000108 · 25%');
    expect(await usage('answer').getAttribute('data-cost')).toBe('0.000108');
    expect(await run.spanRow('fan[a]').getByTestId('span-usage').getAttribute('data-tokens')).toBe('104');
    // A node's detail lists its model calls with their tokens and cost.
    await run.spanRow('fan').locator('button').first().click();
    const calls = run.root.getByTestId('span-call');
    await expect.poll(() => calls.count()).toBe(2);
    expect(await calls.first().getAttribute('data-cost')).toBe('0.000108');
    expect(await calls.first().textContent()).toMatch(/priced-model in fan\[[ab]\] · 100 in, 4 out · \$0\.000108/);
    await screenshot('90-run-usage');
  });

  it('edits the project’s prices from the run header into agent.json, and the next run is priced with them', async () => {
    const { page, url, screenshot } = world();
    const { composer, run } = await openNewSession(world());
    await composer.typeText('What does it cost now?');
    await composer.send();
    const first = await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    await expect.poll(() => page.getByTestId('run-usage').textContent()).toBe('416 tokens · $0.000432');

    await page.getByTestId('open-prices').click();
    const dialog = page.getByTestId('prices-dialog');
    const row = dialog.locator('[data-testid="price-row"][data-model="priced-model"]');
    expect(await row.locator('[data-field="input"]').inputValue()).toBe('1');
    expect(await row.locator('[data-field="output"]').inputValue()).toBe('2');
    await audit(page, 'the prices dialog');
    await row.locator('[data-field="input"]').fill('10');
    await screenshot('91-prices');
    const before = (await projectStatus(url)).fingerprint;
    await dialog.getByTestId('prices-save').click();
    await dialog.waitFor({ state: 'hidden' });
    // Only the pricing value changed; the manifest reloads the agent.
    const manifest = readFileSync(join(PROJECT, 'agent.json'), 'utf8');
    expect(JSON.parse(manifest).pricing).toEqual({ 'priced-model': { input: 10, output: 2 } });
    expect(manifest).toContain('"skills": [{ "id": "answer"');
    await waitProjectLoaded(url, before);

    // Four calls of 100 input and 4 output tokens: 4 × (100 × 10 + 4 × 2) / 1e6 dollars.
    await composer.typeText('And now?');
    await composer.send();
    await run.waitForNewRun(first);
    await run.waitForStatus('completed');
    await expect.poll(() => page.getByTestId('run-usage').getAttribute('data-cost')).toBe('0.004032');
    expect(await page.getByTestId('run-usage').textContent()).toBe('416 tokens · $0.00403');
  });
});
