// The page objects most tests start from: the studio opened on a new, empty session.
import type { Page } from 'playwright-core';
import { ComposerPage } from './composer.ts';
import { RunPage } from './run.ts';
import { StudioPage } from './studio.ts';

export async function openNewSession({ page, url }: { page: Page; url: string }) {
  const studio = new StudioPage(page, url);
  const composer = new ComposerPage(page);
  const run = new RunPage(page);
  await studio.open();
  const sessionId = await studio.newSession();
  return { studio, composer, run, sessionId };
}
