// Per-file studio, per-test world. Each spec file (each useStudioWorld call) starts one
// studio (real Playground API + real runtime child + the example project) on a free port
// with its own temp data dir, and shares it between its tests: a studio per test paid its
// start-up and a runtime child start each time. Before each test the studio is put back to
// what a fresh one shows, through its own API (every session deleted, which cancels an
// active run and deletes the runs, events and blob references with it; the project's files
// as they were at start, loaded by the runtime), and the test gets a fresh browser context
// on the shared Chromium (no storage, no open page left over). Tests stay independent: each
// creates its own sessions and data. Close order: page, context; after the file: studio,
// data dir.
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

export interface WorldOptions {
  colorScheme?: 'light' | 'dark';
  studio?: Partial<StudioOptions>;
  /** The tests edit the project's files: before each test the files are saved back to what
   * they were when the studio started, and the test starts once the runtime has loaded them
   * (docs/studio-api.md, "How an edit reaches the agent"). */
  restoreProject?: boolean;
}

/** Registers the hooks; the returned getter gives the current test's world. */
export function useStudioWorld(options: WorldOptions = {}): () => World {
  let browser: Browser;
  let studio: { url: string; api: StudioApi; dataDir: string; close(): Promise<void> } | null = null;
  let original: ProjectFiles | null = null;
  let world: World | null = null;

  beforeAll(async () => {
    browser = await chromium.connect(inject('browserWSEndpoint'));
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    const dataDir = await mkdtemp(join(tmpdir(), 'agent-studio-e2e-'));
    const running = await startStudio({
      projectDir: EXAMPLE_PROJECT,
      dataDir,
      port: 0,
      // Quiet unless something goes wrong (E2E_LOG_LEVEL=info to see the studio's log).
      logger: pino({ level: process.env.E2E_LOG_LEVEL ?? 'warn' }, pino.destination(2)),
      ...options.studio,
    });
    const url = running.url.replace(/\/$/, '');
    studio = { url, api: new StudioApi(url), dataDir, close: () => running.close() };
    if (options.restoreProject) original = await projectFiles(url);
  });

  afterAll(async () => {
    const s = studio;
    studio = null;
    await s?.close().catch((err) => console.error('studio close failed', err));
    if (s) await rm(s.dataDir, { recursive: true, force: true }).catch(() => undefined);
    await browser?.close();
  });

  beforeEach(async () => {
    const s = studio!;
    await deleteEverySession(s.api);
    if (original) await restoreProject(s.url, original);
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
    world = {
      url: s.url,
      page,
      context,
      api: s.api,
      dataDir: s.dataDir,
      screenshot: async (name) => {
        await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
      },
    };
  });

  afterEach(async () => {
    const w = world;
    world = null;
    await w?.context.close().catch(() => undefined);
  });

  return () => {
    if (!world) throw new Error('the studio world exists only inside a test');
    return world;
  };
}

/** Deletes every session (docs/playground-api.md, DELETE /sessions/{id}: an active run is
 * cancelled first; runs, events and blob references go with the session), then checks the
 * studio lists none: a test starts on an empty studio. */
async function deleteEverySession(api: StudioApi): Promise<void> {
  // A page of sessions at a time (the list is paged); a few rounds at most.
  for (let round = 0, left = await api.sessions(); left.length > 0; round++, left = await api.sessions()) {
    if (round === 20) throw new Error(`sessions still listed after deleting them: ${left.map((s) => s.session_id).join(', ')}`);
    for (const s of left) {
      const r = await api.call('DELETE', `/sessions/${s.session_id}`);
      if (r.status !== 204 && r.status !== 404) throw new Error(`delete session ${s.session_id}: ${r.status} ${JSON.stringify(r.body)}`);
    }
  }
}

interface ProjectStatusBody {
  state: string;
  pending_changes: string[];
  fingerprint: string;
  file_sha256: Record<string, string>;
}

interface ProjectFiles {
  fingerprint: string;
  sha256: Record<string, string>;
  content: Record<string, string>;
}

async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The project's files as the studio lists them (docs/studio-api.md, GET /api/project). */
async function projectFiles(url: string): Promise<ProjectFiles> {
  const status = await getJson<ProjectStatusBody>(`${url}/api/project`);
  const content: Record<string, string> = {};
  for (const path of Object.keys(status.file_sha256)) {
    content[path] = (await getJson<{ content: string }>(`${url}/api/project/file?path=${encodeURIComponent(path)}`)).content;
  }
  return { fingerprint: status.fingerprint, sha256: status.file_sha256, content };
}

/** Saves back (POST /api/save) every file that differs from `original`, then waits until
 * the studio reports the files on disk are the original ones and the runtime has loaded
 * them (state `ready`, nothing pending). A file the test added is not listed by the studio
 * as the original's, so it is reported as a difference and fails the reset loudly. */
async function restoreProject(url: string, original: ProjectFiles): Promise<void> {
  const now = await getJson<ProjectStatusBody>(`${url}/api/project`);
  const added = Object.keys(now.file_sha256).filter((p) => !(p in original.sha256));
  if (added.length) throw new Error(`a test added project files the reset cannot remove: ${added.join(', ')}`);
  for (const [path, sha256] of Object.entries(original.sha256)) {
    if (now.file_sha256[path] === sha256) continue;
    const res = await fetch(`${url}/api/save`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path, content: original.content[path] }),
    });
    if (!res.ok) throw new Error(`restore ${path}: ${res.status} ${await res.text()}`);
  }
  const until = Date.now() + 60_000;
  for (;;) {
    const s = await getJson<ProjectStatusBody>(`${url}/api/project`);
    if (s.fingerprint === original.fingerprint && s.state === 'ready' && s.pending_changes.length === 0) return;
    if (Date.now() > until)
      throw new Error(`the project did not load its original files again: ${JSON.stringify({ state: s.state, pending: s.pending_changes })}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
