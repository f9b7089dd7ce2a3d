// The desktop app through playwright-core's _electron. Runs where the Electron binary is
// installed (and a display exists); elsewhere it is skipped with the reason printed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { _electron as electron, type ElectronApplication, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findElectronBinary } from '../src/main/studio/start.ts';

const REPO_ROOT = resolve(import.meta.dirname, '..');
const binary = findElectronBinary();
const noDisplay = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const skipReason = !binary.ok ? binary.reason : noDisplay ? 'there is no display (DISPLAY/WAYLAND_DISPLAY unset)' : null;
if (skipReason) console.log(`[e2e] electron.spec.ts skipped: ${skipReason}`);

describe.skipIf(skipReason !== null)('desktop app (Electron)', () => {
  let app: ElectronApplication;
  let page: Page;
  let dataDir: string;

  beforeAll(async () => {
    const { build } = await import('electron-vite');
    await build({ configFile: join(REPO_ROOT, 'electron.vite.config.ts'), logLevel: 'warn' });
    dataDir = await mkdtemp(join(tmpdir(), 'agent-studio-electron-'));
    app = await electron.launch({
      executablePath: binary.ok ? binary.path : undefined,
      args: [REPO_ROOT, ...(process.platform === 'linux' ? ['--no-sandbox'] : [])],
      env: { ...process.env, AGENT_STUDIO_PROJECT: join(REPO_ROOT, 'examples', 'support-desk'), AGENT_STUDIO_DATA_DIR: dataDir } as Record<string, string>,
    });
    page = await app.firstWindow();
    await page.locator('#root[data-app-state="ready"]').waitFor({ timeout: 60_000 });
  }, 180_000);

  afterAll(async () => {
    await app?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('shows the studio in a hardened window with the typed bridge', async () => {
    // No Node in the page (nodeIntegration off, sandbox on, context isolation on).
    expect(await page.evaluate(() => typeof (globalThis as unknown as Record<string, unknown>).require)).toBe('undefined');
    expect(await page.evaluate(() => typeof (globalThis as unknown as Record<string, unknown>).process)).toBe('undefined');
    // The bridge: one function per operation, nothing else.
    expect(await page.evaluate(() => Object.keys((globalThis as unknown as Record<string, object>).agentStudio ?? {}).sort())).toEqual([
      'openInEditor',
      'openProjectFolder',
      'revealFile',
    ]);
    // window.open is denied: no second window appears.
    await page.evaluate(() => (globalThis as unknown as { open(url: string, target: string): unknown }).open('https://example.com/', '_blank'));
    await page.waitForTimeout(300);
    expect(app.windows()).toHaveLength(1);
    // Navigation away from the studio is blocked.
    const before = page.url();
    await page.evaluate(() => {
      (globalThis as unknown as { location: { href: string } }).location.href = 'https://example.com/';
    });
    await page.waitForTimeout(300);
    expect(page.url()).toBe(before);
  });

  it('creates a session', async () => {
    await page.getByTestId('new-session').click();
    await page.getByTestId('session-item').first().waitFor();
    await page.screenshot({ path: join(REPO_ROOT, 'test-results', 'screenshots', '09-electron.png') });
  });
});

describe.skipIf(skipReason === null)('desktop app (Electron) unavailable', () => {
  it.skip(`skipped: ${skipReason ?? ''}`, () => {});
});
