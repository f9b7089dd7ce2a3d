// A checkout with no built renderer (first `npm start`): the studio answers at once with the
// renderer served through Vite's dev server in middleware mode (src/main/studio/renderer-dev.ts),
// a working page in Chromium, the production CSP unchanged, no HMR WebSocket, and the loopback
// Host/Origin guard in front of it (docs/security.md); once a production build exists, pages
// load it while the dev server keeps answering its own module paths (docs/studio-api.md).
// The production build waits for the first page: the dev server says when a page and every
// module it asked for have been answered (firstPageSettled), which no request and no warm-up
// transform alone does.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevRenderer, type DevRenderer } from '../../src/main/studio/renderer-dev.ts';
import { rawRequest, startTestStudio, type TestStudio } from './helpers/playground-studio.ts';
import { tempDir } from './helpers/runtime.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const productionCsp = /http-equiv="Content-Security-Policy"\s+content="([^"]+)"/.exec(
  fs.readFileSync(path.join(ROOT, 'src', 'renderer', 'index.html'), 'utf8'),
)![1]!;

let dev: DevRenderer;
let t: TestStudio;
let rendererDir: string;
let startMs = 0;

beforeAll(async () => {
  const started = Date.now();
  rendererDir = tempDir('renderer-not-built');
  dev = await startDevRenderer();
  t = await startTestStudio({ rendererDir, rendererDev: dev.handler, runtimeCommand: false });
  startMs = Date.now() - started;
}, 60_000);

afterAll(async () => {
  await t?.close();
  await dev?.close();
});

/** A WebSocket handshake to the studio's port: the answer's status line (Node answers it as
 * a plain request when nothing takes upgrades), or '' when the connection is closed without one. */
function upgrade(port: number, pathname: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(
        `GET ${pathname} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
          'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: vite-hmr\r\n\r\n',
      ),
    );
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => {
      data += c;
      if (data.includes('\r\n')) socket.destroy();
    });
    socket.on('close', () => resolve(data.split('\r\n')[0] ?? ''));
    socket.on('error', reject);
  });
}

/** Whether `p` is still unsettled after everything already queued has run. */
async function pending(p: Promise<unknown>): Promise<boolean> {
  const marker = Symbol('pending');
  return (await Promise.race([p, new Promise((r) => setImmediate(() => r(marker)))])) === marker;
}

describe('the renderer of a checkout with no production build', () => {
  it('serves the page at once, with the production CSP and the HMR connection left out', async () => {
    expect(startMs).toBeLessThan(20_000);
    // Started and warmed up, but no page asked for yet: the production build has not begun.
    expect(await pending(dev.firstPageSettled)).toBe(true);
    const page = await rawRequest(t.url);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`content="${productionCsp}"`);
    expect(page.body).toContain('/@vite/client');
    const client = await rawRequest(`${t.url}@vite/client`);
    expect(client.status).toBe(200);
    expect(client.body).not.toContain('transport.connect(createHMRHandler');
    const main = await rawRequest(`${t.url}src/main.tsx`);
    expect(main.status).toBe(200);
    expect(main.headers['content-type']).toMatch(/javascript/);
  });

  it('keeps the loopback guard in front of the dev server, and accepts no WebSocket', async () => {
    for (const p of ['', 'src/main.tsx', '@vite/client']) {
      const host = await rawRequest(`${t.url}${p}`, { headers: { host: `evil.example:${t.studio.port}` } });
      expect(host.status, p).toBe(403);
      const origin = await rawRequest(`${t.url}${p}`, { headers: { origin: 'https://evil.example' } });
      expect(origin.status, p).toBe(403);
    }
    for (const p of ['/', '/?token=x', '/@vite/client']) expect(await upgrade(t.studio.port, p)).not.toMatch(/ 101 /);
    expect(await upgrade(t.studio.port, '/')).toMatch(/^HTTP\/1\.1 200/);
    // The source of files outside the renderer, or secrets, is not served.
    expect((await rawRequest(`${t.url}@fs${ROOT}/examples/support-desk/.env.example`)).status).not.toBe(200);
  });

  it('loads a working studio page in Chromium, with no WebSocket and no CSP violation', async () => {
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      const sockets: string[] = [];
      const violations: string[] = [];
      page.on('websocket', (ws) => sockets.push(ws.url()));
      page.on('console', (m) => {
        if (/Content Security Policy|websocket/i.test(m.text())) violations.push(m.text());
      });
      const started = Date.now();
      await page.goto(t.url);
      await page.waitForSelector('#root[data-app-state="ready"]', { timeout: 45_000 });
      const readyMs = Date.now() - started;
      console.log(`[renderer-dev] studio ready ${startMs} ms after start; page ready ${readyMs} ms after navigation`);
      // By now the first page (answered above) and its modules are: the build may start.
      await dev.firstPageSettled;
      await expect(
        page
          .getByRole('button', { name: /new session/i })
          .first()
          .isVisible(),
      ).resolves.toBe(true);
      expect(sockets).toEqual([]);
      expect(violations).toEqual([]);
      expect(await page.locator('meta[http-equiv="Content-Security-Policy"]').getAttribute('content')).toBe(productionCsp);
    } finally {
      await browser.close();
    }
  });

  it('says the first page has loaded only once the page a browser opened is whole', async () => {
    // A dev server of its own, which no request has reached yet.
    const fresh = await startDevRenderer();
    const studio = await startTestStudio({ rendererDir: tempDir('renderer-not-built'), rendererDev: fresh.handler, runtimeCommand: false });
    const browser: Browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const seen: string[] = [];
      void fresh.firstPageSettled.then(() => seen.push('settled'));
      // An API request is not a page.
      expect((await rawRequest(`${studio.url}api/project`)).status).toBe(200);
      expect(await pending(fresh.firstPageSettled)).toBe(true);
      const page = await browser.newPage();
      page.on('requestfinished', (r) => {
        if (new URL(r.url()).pathname.startsWith('/src/')) seen.push('module');
      });
      await page.goto(studio.url);
      await page.waitForSelector('#root[data-app-state="ready"]', { timeout: 45_000 });
      await fresh.firstPageSettled;
      // The page was ready, and every renderer module it loaded was answered, before.
      expect(await page.getAttribute('#root', 'data-app-state')).toBe('ready');
      expect(seen.filter((x) => x === 'module').length).toBeGreaterThan(0);
      expect(seen.at(-1)).toBe('settled');
    } finally {
      await browser.close();
      await studio.close();
      await fresh.close();
    }
  }, 90_000);

  it('serves the production build once it exists, and the dev server its own modules still', async () => {
    fs.writeFileSync(path.join(rendererDir, 'index.html'), '<!doctype html><title>built studio</title>');
    expect((await rawRequest(t.url)).body).toContain('built studio');
    expect((await rawRequest(`${t.url}sessions/x`)).body).toContain('built studio');
    const main = await rawRequest(`${t.url}src/main.tsx`);
    expect(main.status).toBe(200);
    expect(main.headers['content-type']).toMatch(/javascript/);
  });
});
