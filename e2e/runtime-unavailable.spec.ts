// A runtime that cannot start: the run fails with reason runtime_unavailable and the banner
// offers the recommended command, with a copy button (spec 6.2).
import { describe, expect, it } from 'vitest';
import { useStudioWorld } from './fixtures.ts';
import { openNewSession } from './pages/session.ts';

describe('runtime unavailable', () => {
  const world = useStudioWorld({
    studio: {
      // A "runtime" that dies at once, every time it is restarted.
      runtimeCommand: () => ({ command: process.execPath, args: ['-e', 'console.error("boom: no runtime today"); process.exit(3)'] }),
      runtimeReadyTimeoutMs: 2_000,
      runtimeBackoffMs: [200],
    },
  });

  it('shows the reason and the recommended command with a copy button', async () => {
    const { page, screenshot } = world();
    const { composer, run } = await openNewSession(world());
    await composer.typeText('Where is my order ORD-23456?');
    await composer.send();
    await run.waitForNewRun(null);
    await run.waitForStatus('failed', 30_000);
    expect(await run.banner().getAttribute('data-reason')).toBe('runtime_unavailable');

    const command = run.root.getByTestId('recommended-command');
    await command.waitFor();
    const text = (await command.locator('code').textContent()) ?? '';
    expect(text).toContain('agent-studio runtime --project');
    await run.root.getByTestId('copy-command').click();
    await expect
      .poll(() => page.evaluate(() => (globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }).navigator.clipboard.readText()))
      .toBe(text);
    await screenshot('10-runtime-unavailable');
  });
});
