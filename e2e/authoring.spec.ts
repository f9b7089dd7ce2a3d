// The authoring loop in the browser: a graph node opens its function in the source view;
// an edit saved there changes the next answer with nothing else to do; a broken edit is
// reported at once with its line, and sending waits until it is fixed; saving leaves the
// editor where the author was, through the project reload and a page reload.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { EXAMPLE_PROJECT, useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';
import { projectStatus, waitProjectLoaded } from './pages/project.ts';

// A copy of the example inside the repo (so `agent-studio/sdk` resolves), edited freely.
const PROJECT = resolve(import.meta.dirname, '..', 'test', '.tmp', `e2e-authoring-${process.pid}`);
mkdirSync(PROJECT, { recursive: true });
cpSync(EXAMPLE_PROJECT, PROJECT, { recursive: true, filter: (src) => !src.includes('.agent-studio') && !src.endsWith('.env') });

/** Pastes `text` over the open file, waits until the editor has it (dirty), saves with
 * Ctrl/Cmd+S, and waits until the saved text is on disk. */
async function replaceEditorText(page: Page, url: string, path: string, text: string): Promise<void> {
  await page.evaluate(
    (t) => (globalThis as unknown as { navigator: { clipboard: { writeText(s: string): Promise<void> } } }).navigator.clipboard.writeText(t),
    text,
  );
  await page.getByTestId('source-editor').locator('.monaco-editor .view-lines').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('ControlOrMeta+V');
  await page.locator(`[data-testid="source-tab"][data-path="${path}"][data-dirty="true"]`).waitFor();
  await page.keyboard.press('ControlOrMeta+S');
  await page.locator(`[data-testid="source-tab"][data-path="${path}"]:not([data-dirty])`).waitFor();
  await expect
    .poll(async () => ((await (await fetch(`${url}/api/project/file?path=${encodeURIComponent(path)}`)).json()) as { content: string }).content)
    .toBe(text);
}

/** Where the editor is: cursor, selection and scroll (the source view says it on the editor). */
async function editorPlace(page: Page): Promise<{ cursor: string | null; selection: string | null; scrollTop: string | null }> {
  const editor = page.getByTestId('source-editor');
  return {
    cursor: await editor.getAttribute('data-cursor'),
    selection: await editor.getAttribute('data-selection'),
    scrollTop: await editor.getAttribute('data-scroll-top'),
  };
}

describe('authoring loop', () => {
  // Registered before the world's hooks, so it runs after the studio closed (after-all
  // hooks run in reverse order).
  afterAll(() => rmSync(PROJECT, { recursive: true, force: true }));
  // Each test starts on the original files (the fixture saves them back between tests).
  const world = useStudioWorld({ studio: { projectDir: PROJECT }, restoreProject: true });

  it('goes from a graph node to its function, edits and saves it, and the next run answers with the new code', async () => {
    const { page, url, screenshot } = world();
    const { studio, composer, run } = await openNewSession(world());
    await studio.showView('graph');
    await page.locator('[data-testid="graph-node"][data-node-id="respond"]').click();
    await page.getByTestId('node-go-to-source').click();

    const view = page.locator('[data-testid="source-view"][data-active-file="src/graph.ts"]');
    await view.waitFor();
    const targets = (await (await fetch(`${url}/api/playground/v1/source-targets/respond`)).json()) as { targets: { kind: string; line: number }[] };
    const fn = targets.targets.find((t) => t.kind === 'function')!;
    await expect.poll(() => page.getByTestId('source-location').textContent()).toBe(`src/graph.ts:${fn.line}`);
    await page.locator('.source-highlight').first().waitFor();
    await screenshot('20-source-view');

    const file = (await (await fetch(`${url}/api/project/file?path=src/graph.ts`)).json()) as { content: string };
    await replaceEditorText(page, url, 'src/graph.ts', file.content.replace('Good news: your refund', 'Splendid news: your refund'));

    await studio.showView('run');
    await composer.typeText('I want a refund for order ORD-12345');
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    expect(await run.finalOutput().getByTestId('part-text').first().textContent()).toContain('Splendid news');
  });

  it('reports a broken edit at once, with its line, and holds sending until it is fixed', async () => {
    const { page, url, screenshot } = world();
    const { studio, composer } = await openNewSession(world());
    const original = ((await (await fetch(`${url}/api/project/file?path=src/graph.ts`)).json()) as { content: string }).content;
    await studio.showView('source');
    await page.locator('[data-testid="source-file"][data-path="src/graph.ts"]').click();
    await page.locator('[data-testid="source-view"][data-active-file="src/graph.ts"]').waitFor();
    await replaceEditorText(page, url, 'src/graph.ts', original.replace('const DRAFT_MARKER', 'const DRAFT_MARKER =;\nconst BROKEN'));

    const banner = page.getByTestId('project-banner');
    await banner.waitFor({ timeout: 20_000 }).catch(async (err) => {
      // Say what the studio and the page saw, to tell a slow reload from a refused save.
      const project = await (await fetch(`${url}/api/project`)).json();

      const onPage = await page.locator('[data-testid="source-conflict"], .field-error').allTextContents();
      await screenshot('21-project-banner-missing');
      throw new Error(`${(err as Error).message}\nproject: ${JSON.stringify(project).slice(0, 400)}\npage: ${onPage.join(' | ')}`);
    });
    expect(await banner.getByTestId('project-diagnostic').first().textContent()).toMatch(/^src\/graph\.ts:\d+:\d+$/);
    await screenshot('21-project-banner');
    // The banner takes its room from the panes below it: the page stays the window's height
    // (no outer scrollbar at 1440x900), in the source view and in the run view.
    // Its sentence reads as one text and the list of diagnostics comes under it, not beside it.
    const [sentence, list] = [(await banner.locator('strong').boundingBox())!, (await banner.locator('ul').boundingBox())!];
    expect(list.y).toBeGreaterThanOrEqual(sentence.y + sentence.height - 1);
    const pageOverflow = () =>
      page.evaluate(() => {
        const w = globalThis as unknown as { innerHeight: number; document: { documentElement: { scrollHeight: number } } };
        return w.document.documentElement.scrollHeight - w.innerHeight;
      });
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    await studio.showView('run');
    await page.getByTestId('composer').waitFor();
    expect(await pageOverflow()).toBeLessThanOrEqual(0);
    await composer.typeText('hello');
    await page.locator('[data-testid="send-blocked-reason"][data-reason="project_invalid"]').waitFor();
    expect(await composer.sendButton().isDisabled()).toBe(true);

    // Fixed: the banner goes, and sending is possible again.
    await banner.getByTestId('project-diagnostic').first().click();
    await page.locator('[data-testid="source-view"][data-active-file="src/graph.ts"]').waitFor();
    await replaceEditorText(page, url, 'src/graph.ts', original);
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    await studio.showView('run');
    await expect.poll(() => composer.sendButton().isDisabled()).toBe(false);
  });

  it("keeps the page the window's height with a banner of many diagnostics: the list scrolls inside the banner", async () => {
    const { page, url } = world();
    const { studio } = await openNewSession(world());
    // 60 run options of an unknown type: one diagnostic each (docs/project-format.md, run
    // options), a list far taller than the 900 px window.
    const original = ((await (await fetch(`${url}/api/project/file?path=agent.json`)).json()) as { content: string }).content;
    const manifest = JSON.parse(original) as Record<string, unknown>;
    manifest.runOptions = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`option${i + 1}`, { type: 'float' }]));
    const saved = await fetch(`${url}/api/save`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'agent.json', content: `${JSON.stringify(manifest, null, 2)}\n` }),
    });
    expect(saved.status).toBe(200);
    const banner = page.getByTestId('project-banner');
    await banner.waitFor({ timeout: 20_000 });
    await expect.poll(() => banner.getByTestId('project-diagnostic').count(), { timeout: 20_000 }).toBe(60);

    const layout = () =>
      page.evaluate(() => {
        interface El {
          scrollHeight: number;
          clientHeight: number;
          scrollTop: number;
        }
        const w = globalThis as unknown as { innerHeight: number; document: { scrollingElement: El; querySelector(s: string): El } };
        const b = w.document.querySelector('[data-testid="project-banner"]');
        return { page: w.document.scrollingElement.scrollHeight, window: w.innerHeight, list: b.scrollHeight, banner: b.clientHeight, scrolled: b.scrollTop };
      });
    for (const view of ['run', 'source', 'graph'] as const) {
      await studio.showView(view);
      const l = await layout();
      // The list alone is taller than the window: laid out in the page, it would make it scroll.
      expect(l.list, view).toBeGreaterThan(l.window);
      // No outer scrollbar: the page is the window's height; the banner shows a part of the
      // list and scrolls the rest.
      expect(l.page, view).toBeLessThanOrEqual(l.window);
      expect(l.banner, view).toBeLessThan(l.window / 2);
    }
    // The last diagnostic is reached by scrolling the banner, and still opens its place.
    await banner.getByTestId('project-diagnostic').last().scrollIntoViewIfNeeded();
    const after = await layout();
    expect(after.scrolled).toBeGreaterThan(0);
    expect(after.page).toBeLessThanOrEqual(after.window);
    await banner.getByTestId('project-diagnostic').last().click();
    await page.locator('[data-testid="source-view"][data-active-file="agent.json"]').waitFor();

    // The manifest as it was, so the tests after this one see a project that loads.
    const restored = await fetch(`${url}/api/save`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: 'agent.json', content: original }),
    });
    expect(restored.status).toBe(200);
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    // ... and the runtime has loaded it: a reload still under way would refresh the views of
    // the next test in the middle of it.
    await expect
      .poll(
        async () => {
          const p = (await (await fetch(`${url}/api/project`)).json()) as { state: string; pending_changes: string[] };
          return p.state === 'ready' && p.pending_changes.length === 0;
        },
        { timeout: 30_000 },
      )
      .toBe(true);
  });

  it('keeps the cursor, selection and scroll where the author was on save, on the project reload and on a page reload', async () => {
    const { page, url } = world();
    const { studio } = await openNewSession(world());
    await studio.showView('graph');
    await page.locator('[data-testid="graph-node"][data-node-id="respond"]').click();
    await page.getByTestId('node-go-to-source').click();
    const targetsOf = async () =>
      ((await (await fetch(`${url}/api/playground/v1/source-targets/respond`)).json()) as { targets: { kind: string; line: number }[] }).targets;
    const fnLine = (await targetsOf()).find((t) => t.kind === 'function')!.line;
    await expect.poll(() => page.getByTestId('source-location').textContent()).toBe(`src/graph.ts:${fnLine}`);

    // A line added at the top (the node's function moves down a line), then the cursor to
    // the end of the file with the last two lines selected.
    await page.getByTestId('source-editor').locator('.monaco-editor .view-lines').click();
    await page.keyboard.press('ControlOrMeta+Home');
    await page.keyboard.type('// kept in place');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.press('Shift+ArrowUp');
    await page.keyboard.press('Shift+ArrowUp');
    // Scrolled back up a little (not clamped at the end, whatever the editor's height).
    const bottom = Number((await editorPlace(page)).scrollTop);
    // By keyboard (Monaco's scrollLineUp, Ctrl+Up on Linux: the view moves, the cursor and
    // selection stay): Chromium may latch a series of wheel events to another scroller.
    // Each press moves one line; under load a round of presses can take longer than the
    // poll's 1 s default, so the poll gets the time it needs.
    await expect
      .poll(
        async () => {
          for (let i = 0; i < 10; i++) await page.keyboard.press('Control+ArrowUp');
          return Number((await editorPlace(page)).scrollTop);
        },
        { timeout: 30_000, interval: 100 },
      )
      .toBeLessThan(bottom - 300);
    const place = await editorPlace(page);
    expect(Number(place.scrollTop)).toBeGreaterThan(0);
    expect(place.selection).not.toMatch(/^(\d+):\d+-\1:/); // spans lines
    const where = await page.getByTestId('source-location').textContent();
    expect(where).not.toBe(`src/graph.ts:${fnLine}`);

    const before = (await projectStatus(url)).fingerprint;
    await page.keyboard.press('ControlOrMeta+S');
    await page.locator('[data-testid="source-tab"][data-path="src/graph.ts"]:not([data-dirty])').waitFor();
    await waitProjectLoaded(url, before, 20_000);
    // The page has the fresh analysis (the function one line down): the editor stayed put.
    await page.locator(`[data-testid="source-target"][data-kind="function"]:has-text("src/graph.ts:${fnLine + 1}")`).waitFor();
    expect(await editorPlace(page)).toEqual(place);
    expect(await page.getByTestId('source-location').textContent()).toBe(where);

    // Another view and back, then a reload of the page: the same file, the same place.
    await studio.showView('run');
    await studio.showView('source');
    await page.locator('[data-testid="source-view"][data-active-file="src/graph.ts"]').waitFor();
    await expect.poll(() => editorPlace(page)).toEqual(place);
    await page.reload();
    await studio.waitReady();
    await page.locator('[data-testid="source-view"][data-active-file="src/graph.ts"]').waitFor();
    await expect.poll(() => editorPlace(page)).toEqual(place);
    expect(await page.getByTestId('source-location').textContent()).toBe(where);
  });
});
