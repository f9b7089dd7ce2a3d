// The composer checks before sending and helps fix a refused input; sessions are named,
// renamed in place and found by what was said in them.
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

describe('composer checks and sessions', () => {
  const world = useStudioWorld();

  it('blocks Send on an enum error, listing the allowed values, until the part is fixed', async () => {
    const { page } = world();
    const { composer } = await openNewSession(world());
    await composer.typeText('Please look at this ticket');
    await composer.openPanel('data');
    await composer.addContractPart('support.ticket/1');
    await composer.setJson(JSON.stringify({ schema: 'support.ticket/1', topic: 'complaint', orderId: 'ORD-12345' }, null, 2));
    const problem = page.locator('[data-testid="contract-problem"][data-path="/topic"]');
    await problem.waitFor();
    expect(await problem.textContent()).toContain('must be one of: refund, order_status, question');
    expect(await composer.sendButton().isDisabled()).toBe(true);
    expect(await page.locator('[data-testid="send-blocked-reason"][data-reason="contract"]').count()).toBe(1);

    await composer.setJson(JSON.stringify({ schema: 'support.ticket/1', topic: 'order_status', orderId: 'ORD-12345' }, null, 2));
    await expect.poll(() => page.getByTestId('contract-problem').count()).toBe(0);
    await expect.poll(() => composer.sendButton().isDisabled()).toBe(false);

    // The form view edits the same part: an enum is a select of the allowed values.
    await page.getByTestId('data-view-form-edit').click();
    const topic = page.locator('[data-testid="form-field"][data-field="topic"]');
    expect(await topic.inputValue()).toBe('order_status');
    expect(await topic.locator('option').allTextContents()).toEqual(['Choose…', 'refund', 'order_status', 'question']);
    await topic.selectOption('refund');
    await page.locator('[data-testid="form-field"][data-field="priority"]').selectOption('high');
    await page.getByTestId('data-view-json-edit').click();
    await expect
      .poll(async () => JSON.parse(await composer.editorText()))
      .toEqual({ schema: 'support.ticket/1', topic: 'refund', orderId: 'ORD-12345', priority: 'high' });
  });

  it("suggests the card's examples for the message and completes the JSON from the contract and earlier runs", async () => {
    const { page, api } = world();
    const { studio, composer, sessionId } = await openNewSession(world());
    // An earlier successful run used priority "low".
    const earlier = await api.createRun(sessionId, {
      parts: [
        { kind: 'text', text: 'Where is my order?' },
        { kind: 'data', data: { schema: 'support.ticket/1', topic: 'order_status', orderId: 'ORD-23456', priority: 'low' } },
      ],
    });
    expect((await api.waitForEnd(earlier.body.run_id)).status).toBe('completed');
    await studio.open(`#/sessions/${sessionId}`);

    // The card's skill examples start a message in one click.
    const example = page.getByTestId('skill-example').filter({ hasText: 'How do I reset my password?' });
    await example.click();
    expect(await page.getByTestId('composer-text').inputValue()).toBe('How do I reset my password?');
    await expect.poll(() => page.getByTestId('skill-examples').count()).toBe(0);

    await composer.addContractPart('support.ticket/1');
    await composer.setJson('{\n  "schema": "support.ticket/1",\n  "priority": \n}');
    // Values for priority: the one used before first, then the default, then the other enum values.
    await page.keyboard.press('ControlOrMeta+End');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('End');
    await page.keyboard.press('Control+Space');
    const rows = page.locator('.suggest-widget .monaco-list-row');
    await rows.first().waitFor();
    await expect.poll(() => rows.locator('.label-name').allTextContents()).toEqual(['"low"', '"normal"', '"high"']);
    expect(await rows.first().textContent()).toContain('used in 1 earlier run');
    await page.keyboard.press('Enter');
    await expect.poll(async () => JSON.parse(await composer.editorText())).toEqual({ schema: 'support.ticket/1', priority: 'low' });

    // Property names the object lacks, the required one first.
    await page.keyboard.press('End');
    await page.keyboard.type(',');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Control+Space');
    await expect.poll(async () => (await rows.locator('.label-name').allTextContents())[0]).toBe('topic');
    await page.keyboard.press('Enter');
    // Choosing a property asks for its values next: the topic used before comes first.
    await expect.poll(async () => (await rows.locator('.label-name').allTextContents())[0]).toBe('"order_status"');
    await page.keyboard.press('Enter');
    await expect.poll(async () => JSON.parse(await composer.editorText())).toEqual({ schema: 'support.ticket/1', priority: 'low', topic: 'order_status' });
  });

  it('edits and resends a refused input in two clicks', async () => {
    const { page, api } = world();
    const { run, sessionId, studio } = await openNewSession(world());
    // An input the runtime refuses (sent through the API, where nothing checks it first).
    const created = await api.createRun(sessionId, {
      parts: [
        { kind: 'text', text: 'Where is it?' },
        { kind: 'data', data: { schema: 'support.ticket/1', topic: 'lost_parcel' } },
      ],
      metadata: { userId: 'e2e-user' },
    });
    await api.waitForEnd(created.body.run_id);
    await studio.open(`#/sessions/${sessionId}/runs/${created.body.run_id}`);
    await run.waitForRun(created.body.run_id);
    await run.waitForStatus('failed');
    const hint = page.getByTestId('failure-input');
    await hint.waitFor();
    expect(await hint.textContent()).toContain('/topic must be one of: refund, order_status, question');

    // Click 1: the whole input is back in the composer, its problem shown.
    await page.getByTestId('banner-edit-resend').click();
    expect(await page.getByTestId('composer-text').inputValue()).toBe('Where is it?');
    await page.locator('[data-testid="contract-problem"][data-path="/topic"]').waitFor();
    await page.getByTestId('toggle-data').click();
    const { ComposerPage } = await import('./pages/composer.ts');
    const composer = new ComposerPage(page);
    await composer.setJson(JSON.stringify({ schema: 'support.ticket/1', topic: 'order_status', orderId: 'ORD-23456' }, null, 2));
    await expect.poll(() => composer.sendButton().isDisabled()).toBe(false);
    // Click 2: send.
    await composer.send();
    const resent = await run.waitForNewRun(created.body.run_id);
    await run.waitForStatus('completed');
    const stored = await api.run(resent);
    expect(stored.input_parts[1]).toEqual({ kind: 'data', data: { schema: 'support.ticket/1', topic: 'order_status', orderId: 'ORD-23456' } });
    expect(stored.metadata).toMatchObject({ userId: 'e2e-user' });
  });

  it('names a session after its first message, renames it in place, and finds it by a message', async () => {
    const { page, api } = world();
    const { composer, run, sessionId } = await openNewSession(world());
    await composer.typeText('Where is my order ORD-23456?');
    await composer.sendWithShortcut();
    await run.waitForNewRun(null);
    await run.waitForStatus('completed');
    const item = page.locator(`[data-testid="session-item"][data-session-id="${sessionId}"]`);
    await expect.poll(() => item.locator('.session__title').textContent()).toBe('Where is my order ORD-23456?');
    expect(await page.getByTestId('run-preview').first().textContent()).toBe('Where is my order ORD-23456?');

    await item.getByTestId('session-rename').click();
    const input = item.getByTestId('session-rename-input');
    await input.fill('Parcel to Lyon');
    await input.press('Enter');
    await expect.poll(() => item.locator('.session__title').textContent()).toBe('Parcel to Lyon');
    expect((await api.sessions()).find((s) => s.session_id === sessionId)?.title).toBe('Parcel to Lyon');

    const other = await api.createSession('Something else');
    await page.getByTestId('session-search').fill('ORD-23456');
    await expect.poll(() => page.locator(`[data-testid="session-item"][data-session-id="${other.session_id}"]`).count()).toBe(0);
    expect(await item.count()).toBe(1);
    await page.getByTestId('session-search').fill('no such words anywhere');
    await page.getByTestId('sessions-no-match').waitFor();
  });

  it('moves around by keyboard and lists the shortcuts on ?', async () => {
    const { page, api } = world();
    const { studio, sessionId } = await openNewSession(world());
    const ids: string[] = [];
    for (const text of ['first', 'second']) {
      const created = await api.createRun(sessionId, { parts: [{ kind: 'text', text }] });
      ids.push(created.body.run_id);
      await api.waitForEnd(created.body.run_id);
    }
    await studio.open(`#/sessions/${sessionId}/runs/${ids[1]}`);
    await page.locator(`[data-testid="run-view"][data-run-id="${ids[1]}"]`).waitFor();
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Alt+ArrowUp');
    await page.locator(`[data-testid="run-view"][data-run-id="${ids[0]}"]`).waitFor();
    await page.keyboard.press('Alt+ArrowDown');
    await page.locator(`[data-testid="run-view"][data-run-id="${ids[1]}"]`).waitFor();
    await page.keyboard.press('Alt+KeyC');
    await page.getByTestId('compare-view').waitFor();
    expect(await page.getByTestId('compare-left').inputValue()).toBe(ids[1]);
    await page.keyboard.press('Alt+KeyM');
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id))
      .toBe('composer-text');
    // ? types a question mark in the composer, and opens the sheet elsewhere.
    await page.keyboard.press('Shift+Slash');
    expect(await page.getByTestId('composer-text').inputValue()).toBe('?');
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Shift+Slash');
    await page.getByTestId('shortcut-sheet').waitFor();
    expect(await page.getByTestId('shortcut-sheet').textContent()).toContain('Alt+N');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('shortcut-sheet').isVisible()).toBe(false);
    await page.keyboard.press('Alt+KeyN');
    await expect.poll(async () => (await api.sessions()).length).toBe(2);
  });
});
