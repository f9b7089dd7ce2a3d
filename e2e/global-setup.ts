// One Chromium for the whole e2e suite (launching one per spec file costs seconds on a
// small machine): started here as a browser server, each spec connects to it and opens a
// fresh context per test. Debian's Chromium is used as is; never `npx playwright install`.
import { existsSync } from 'node:fs';
import { chromium, type BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { buildRenderer, rendererNeedsBuild } from '../src/main/studio/renderer-build.ts';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

declare module 'vitest' {
  export interface ProvidedContext {
    browserWSEndpoint: string;
  }
}

let server: BrowserServer | undefined;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `The e2e suite needs Chromium at ${CHROMIUM_PATH} (Debian/Ubuntu: apt-get install chromium; ` +
        'or set CHROMIUM_PATH). It drives the system browser through playwright-core and never downloads one.',
    );
  }
  if (rendererNeedsBuild()) {
    console.log('[e2e] building the renderer (out/renderer is missing or stale)…');
    await buildRenderer();
  }
  server = await chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'],
  });
  project.provide('browserWSEndpoint', server.wsEndpoint());
  return async () => {
    await server?.close();
  };
}
