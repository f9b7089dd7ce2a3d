// Answers people read: Markdown rendered (heading, bold, highlighted code block, table),
// sanitised (a <script> in an answer, say from a teammate's bundle, never runs), links open
// outside the app, and the raw text is one click away; arrays of objects as tables.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { StudioPage } from './pages/studio.ts';
import { RunPage } from './pages/run.ts';

const ANSWER = [
  '## Your refund',
  '',
  'It is **approved** for order `ORD-12345`.',
  '',
  '```js',
  'const refund = { amount: 89.9 };',
  '```',
  '',
  '| item | price |',
  '|---|---|',
  '| mug | 12.50 |',
  '',
  '<script>window.__pwned = true</script><img src=x onerror="window.__pwned = true">',
  '',
  'See [the policy](https://example.com/policy).',
].join('\n');

function bundle() {
  const t = '2026-11-23T10:00:00.000Z';
  return {
    format: 'svc.playground.bundle/1',
    sessions: [{ session_id: 's1', title: 'Markdown answer', created_at: t, updated_at: t }],
    runs: [
      {
        run_id: 'r1',
        session_id: 's1',
        parent_run_id: null,
        origin: 'send',
        status: 'completed',
        reason: null,
        created_at: t,
        started_at: t,
        ended_at: t,
        input_parts: [{ kind: 'text', text: 'Can I get a refund?' }],
        output_parts: [
          { kind: 'text', text: ANSWER },
          {
            kind: 'data',
            data: {
              schema: 'shop.order/1',
              items: [
                { sku: 'MUG-1', qty: 1 },
                { sku: 'TEE-2', qty: 3, note: 'gift' },
              ],
            },
          },
        ],
        scores: [],
        metadata: {},
        changed_files: [],
        revision: null,
        code_fingerprint: null,
        code_files: null,
      },
    ],
    events: [{ seq: 1, run_id: 'r1', ts: t, kind: 'run.status', status: 'completed' }],
    blobs: {},
    source: { project: 'elsewhere', schema_version: 4 },
    input_contracts: null,
  };
}

describe('answers as formatted text', () => {
  const world = useStudioWorld();

  it('renders Markdown, never runs HTML in an answer, and shows the raw text on demand', async () => {
    const { page, url, api, screenshot } = world();
    const imported = await api.call('POST', '/bundles/import', bundle());
    expect(imported.status).toBe(201);
    const runId = imported.body.mapping.runs.r1 as string;
    const sessionId = imported.body.mapping.sessions.s1 as string;
    await new StudioPage(page, url).open(`#/sessions/${sessionId}/runs/${runId}`);
    const run = new RunPage(page);
    await run.waitForRun(runId);
    const text = run.finalOutput().getByTestId('part-text').first();
    await text.locator('h2', { hasText: 'Your refund' }).waitFor();
    expect(await text.getAttribute('data-format')).toBe('markdown');
    expect(await text.locator('strong').textContent()).toBe('approved');
    expect(await text.locator('pre code.hljs').count()).toBe(1);
    expect(await text.locator('pre code .hljs-keyword').first().textContent()).toBe('const');
    expect(await text.locator('td').allTextContents()).toEqual(['mug', '12.50']);
    const link = text.locator('a', { hasText: 'the policy' });
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await link.getAttribute('rel')).toContain('noopener');
    // Nothing of the HTML ran or was rendered.
    expect(await text.locator('script, img').count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: boolean }).__pwned)).toBeUndefined();
    await screenshot('50-markdown');

    // Arrays of objects read as tables, beside the tree.
    await run.finalOutput().getByTestId('data-view-table').click();
    const table = run.finalOutput().locator('[data-testid="array-table"][data-key="items"]');
    expect(await table.locator('th').allTextContents()).toEqual(['sku', 'qty', 'note']);
    expect(await table.locator('tbody tr').count()).toBe(2);

    await run.finalOutput().getByTestId('toggle-raw').first().click();
    expect(await text.getAttribute('data-format')).toBe('plain');
    expect(await text.textContent()).toBe(ANSWER);
  });
});
