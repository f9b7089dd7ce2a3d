// Per-test world: a fresh studio (real Playground API + real runtime + the example project)
// on a free port with its own temp data dir, and a fresh browser context on the shared
// Chromium. Close order: page, context, studio, data dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, inject } from 'vitest';
import { startStudio, type StudioOptions } from '../src/main/studio/studio.ts';
import { StudioApi } from './api.ts';

export const EXAMPLE_PROJECT = resolve(import.meta.dirname, '..', 'examples', 'support-desk');
export const SCREENSHOT_DIR = resolve(import.meta.dirname, '..', 'test-results', 'screenshots');

export interface World {
  url: string;
  page: Page;
  context: BrowserContext;
  api: StudioApi;
  dataDir: string;
  /** Saves test-results/screenshots/<name>.png (a test artifact, looked at by people). */
  screenshot(name: string): Promise<void>;
}

/** Registers the hooks; the returned getter gives the current test's world. */
export function useStudioWorld(options: { colorScheme?: 'light' | 'dark'; studio?: Partial<StudioOptions> } = {}): () => World {
  let browser: Browser;
  let world: World | null = null;
  let closeStudio: (() => Promise<void>) | null = null;

  beforeAll(async () => {
    browser = await chromium.connect(inject('browserWSEndpoint'));
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
  });

  beforeEach(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-studio-e2e-'));
    const studio = await startStudio({
      projectDir: EXAMPLE_PROJECT,
      dataDir,
      port: 0,
      // Quiet unless something goes wrong (E2E_LOG_LEVEL=info to see the studio's log).
      logger: pino({ level: process.env.E2E_LOG_LEVEL ?? 'warn' }, pino.destination(2)),
      ...options.studio,
    });
    closeStudio = () => studio.close();
    const context = await browser.newContext({
      viewport: { width: 1440, height: 900 },
      colorScheme: options.colorScheme ?? 'light',
      // Copy buttons and pasting JSON into Monaco use the clipboard.
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.error('[page error]', err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') console.error('[console]', msg.text());
    });
    const url = studio.url.replace(/\/$/, '');
    world = {
      url,
      page,
      context,
      api: new StudioApi(url),
      dataDir,
      screenshot: async (name) => {
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
      },
    };
  });

  afterEach(async () => {
    const w = world;
    world = null;
    await w?.context.close().catch(() => undefined);
    await closeStudio?.().catch((err) => console.error('studio close failed', err));
    closeStudio = null;
    if (w) await rm(w.dataDir, { recursive: true, force: true }).catch(() => undefined);
  });

  return () => {
    if (!world) throw new Error('the studio world exists only inside a test');
    return world;
  };
}
