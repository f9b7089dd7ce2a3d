// The top bar's Connection control (docs/studio-ui.md): on a project whose .env requires caller
// keys, the author sets an X-API-Key credential in the dialog, sees its hint (never the value), a
// run completes as that caller, a wrong key fails the run with a message naming the profile, and
// Clear goes back to calling the runtime as the studio.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { newKey } from '../src/main/runtime/auth/api-keys.ts';
import { copyExample } from '../test/integration/helpers/runtime.ts';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

const alice = newKey('alice');
const projectDir = copyExample('e2e-connection');
fs.writeFileSync(path.join(projectDir, '.env'), `A2A_API_KEYS=${alice.entry}\n`);

async function saveCredential(page: Page, value: string): Promise<void> {
  await page.getByTestId('connection-button').click();
  const dialog = page.getByTestId('connection-dialog');
  await dialog.getByRole('radio', { name: 'a credential' }).check();
  await dialog.getByLabel('Header').selectOption('X-API-Key');
  const field = dialog.getByLabel('Value');
  await field.fill(value);
  expect(await field.getAttribute('type')).toBe('password');
  // Enter submits the form, as Save does.
  await field.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
}

describe('connection profile', () => {
  // Registered first so it runs last, after the studio on the copy has stopped.
  afterAll(() => fs.rmSync(projectDir, { recursive: true, force: true }));
  const world = useStudioWorld({ studio: { projectDir } });

  it('sets a credential, shows its hint, runs as that caller, fails clearly on a wrong key, and clears', async () => {
    const { page, api, url } = world();
    const { composer, run } = await openNewSession(world());
    const button = page.getByTestId('connection-button');
    await expect.poll(() => button.textContent()).toBe('As the studio');

    await saveCredential(page, alice.key);
    const hint = `…${alice.key.slice(-4)}`;
    await expect.poll(() => button.textContent()).toBe(`As X-API-Key ${hint}`);
    expect(await page.content()).not.toContain(alice.key);

    await composer.typeText('How do I reset my password?');
    await composer.send();
    const first = await run.waitForNewRun(null);
    await run.waitForStatus(['completed', 'failed']);
    expect((await api.run(first)).status).toBe('completed');

    // The dialog shows the saved header and hint, and Clear is offered.
    await button.click();
    const dialog = page.getByTestId('connection-dialog');
    await expect.poll(() => dialog.getByTestId('connection-hint').textContent()).toBe(`Saved: X-API-Key ${hint}`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });

    await saveCredential(page, newKey('mallory').key);
    await composer.typeText('And again?');
    await composer.send();
    const second = await run.waitForNewRun(first);
    await run.waitForStatus('failed');
    await expect.poll(() => run.root.textContent()).toContain("refused the connection profile's credential");
    expect((await api.run(second)).reason).toBe('runtime_error');

    await button.click();
    await dialog.getByRole('button', { name: 'Clear' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => button.textContent()).toBe('As the studio');
    expect(await (await fetch(`${url}/api/runtime/connection`)).json()).toEqual({ header: null, hint: null });
  });
});
