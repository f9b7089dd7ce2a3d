// The debugger inside a subgraph in the studio, on test/fixtures/inspect-agent (prepare ->
// inner [lookup -> rank] -> work -> answer). A breakpoint before `inner:rank`, set from the
// `inner` node's details in the graph view, pauses the run there, and Continue completes it
// (docs/playground-api.md, "Breakpoints and stepping"). Fork (docs/playground-api.md, "Fork and
// re-run from a checkpoint"): the State panel lists the subgraph's steps by name, the step after `lookup` inside
// `inner` is edited (`found` becomes ['x', 'y']) and forked; the new run continues at `rank`
// inside the subgraph, answers for the edit, and has no span of `prepare` or `lookup`.
import { cpSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { ComposerPage } from './pages/composer.ts';
import { StateEditorPage } from './pages/state-editor.ts';
import { openNewSession } from './pages/session.ts';

const REPO = resolve(import.meta.dirname, '..');
// A copy inside the repo (so 'agent-studio/sdk' resolves), never the fixture itself.
const PROJECT = join(REPO, 'test', '.tmp', `e2e-subgraph-${process.pid}`);
cpSync(join(REPO, 'test', 'fixtures', 'inspect-agent'), PROJECT, { recursive: true });

describe('the debugger inside a subgraph', () => {
  const world = useStudioWorld({ studio: { projectDir: PROJECT } });
  afterAll(() => rmSync(PROJECT, { recursive: true, force: true }));

  it('sets a breakpoint before inner:rank from the subgraph’s node details; the run pauses there and Continue completes it', async () => {
    const { page, api, screenshot } = world();
    const { studio, sessionId, run } = await openNewSession(world());
    await studio.showView('graph');
    await page.locator('[data-testid="graph-node"][data-node-id="inner"]').click();
    const inside = page.getByTestId('node-details').getByTestId('subgraph-nodes');
    expect(await inside.getByTestId('subgraph-node').evaluateAll((els) => els.map((e) => e.getAttribute('data-node')))).toEqual(['inner:lookup', 'inner:rank']);
    const before = inside.locator('[data-testid="subgraph-node"][data-node="inner:rank"]').getByTestId('breakpoint-before');
    await before.click();
    await expect.poll(() => before.getAttribute('aria-pressed')).toBe('true');
    await page.locator('[data-testid="breakpoint-item"][data-node="inner:rank"][data-when="before"]').waitFor();
    await screenshot('81-breakpoint-inside-a-subgraph');

    const composer = new ComposerPage(page, 'compact-composer');
    await composer.typeText('hello');
    await composer.send();
    await expect.poll(async () => (await api.runs(sessionId))[0]?.status, { timeout: 30_000 }).toBe('input_required');
    await studio.showView('run');
    await run.waitForStatus('input_required');
    const bar = page.getByTestId('pause-bar');
    await bar.waitFor();
    expect(await bar.getAttribute('data-node')).toBe('inner:rank');
    const paused = await run.runId();
    await bar.getByTestId('pause-continue').click();
    await run.waitForNewRun(paused);
    await run.waitForStatus('completed');
    expect((await api.runs(sessionId)).map((r) => r.status)).toEqual(['completed', 'input_required']);
  });

  it('edits the subgraph’s state after lookup and forks: the fork continues at rank, earlier nodes do not run again', async () => {
    const w = world();
    const { composer, run } = await openNewSession(w);
    await composer.typeText('hello');
    await composer.send();
    const origin = await run.waitForNewRun(null);
    await run.waitForStatus('completed');

    const section = run.root.getByTestId('state-section');
    await section.locator('summary').click();
    const afterLookup = section.locator('[data-testid="state-step"][data-writes="lookup"][data-ns^="inner:"]');
    expect(await afterLookup.textContent()).toContain('inner › After lookup');
    await afterLookup.click();
    const detail = section.locator(`[data-testid="state-detail"][data-checkpoint-id="${await afterLookup.getAttribute('data-checkpoint-id')}"]`);
    expect(await detail.textContent()).toContain('Inside subgraph inner');
    await detail.getByTestId('edit-and-fork').click();
    const sessionId = (await w.api.run(origin)).session_id;
    const checkpoint = await afterLookup.getAttribute('data-checkpoint-id');
    const ns = (await afterLookup.getAttribute('data-ns'))!;
    const state = (await w.api.call('GET', `/sessions/${sessionId}/checkpoints/${checkpoint}?ns=${encodeURIComponent(ns)}`)).body.values as Record<
      string,
      unknown
    >;
    expect(state.found).toEqual(['a', 'b', 'c']);
    const editor = new StateEditorPage(w.page, detail);
    await editor.paste(JSON.stringify({ ...state, found: ['x', 'y'] }, null, 2));
    await expect.poll(() => editor.problems().count(), { timeout: 15_000 }).toBe(0);
    await expect.poll(() => detail.getByTestId('fork-submit').isDisabled()).toBe(false);
    await detail.getByTestId('fork-submit').click();

    const forked = await run.waitForNewRun(origin);
    await run.waitForStatus('completed');
    expect(await run.root.getByTestId('fork-lineage').textContent()).toContain('after inner:lookup (edited found)');
    const detailApi = await w.api.run(forked);
    expect(detailApi.fork).toMatchObject({ run_id: origin, node: 'lookup', patch: [{ op: 'replace', path: '/found', value: ['x', 'y'] }] });
    expect(detailApi.fork?.checkpoint_ns).toMatch(/^inner:/);
    const text = detailApi.output_parts.find((p) => p.kind === 'text') as { text: string } | undefined;
    expect(text?.text).toBe('found x1,y1 (score 2)');
    const spans = (await w.api.events(forked))
      .map((e) => e as unknown as { kind: string; name?: string; data?: { node?: string } })
      .filter((e) => e.kind === 'trace' && e.name === 'span.start')
      .map((e) => e.data?.node);
    expect(spans).toEqual(expect.arrayContaining(['inner', 'rank', 'work', 'answer']));
    expect(spans).not.toContain('prepare');
    expect(spans).not.toContain('lookup');
    // The fork's waterfall shows the same: rank under inner, no lookup.
    await expect.poll(() => run.root.locator('[data-testid="span-row"][data-node="rank"]').count()).toBe(1);
    expect(await run.root.locator('[data-testid="span-row"][data-node="lookup"]').count()).toBe(0);
    await w.screenshot('72-fork-inside-a-subgraph');
  });
});
