// The first `npm start` of a checkout, cold: no out/renderer, no Vite pre-bundle cache
// (out/.vite-dev), no half-done build (out/.renderer-next). Times from the launch of
// `npm start -- --headless` to the studio answering its URL, to the first complete page in a
// Chromium already open (#root[data-app-state="ready"], the studio's explicit ready marker),
// and to the background production build starting (and, with --build on the last run,
// ending); `runs` times, each from a cold cache. It deletes the checkout's built renderer
// (the background build, or `npm run build:renderer`, makes it again).
// Usage: node bin/run-ts.mjs bench/cold-start.bench.ts [runs=3] [--build]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { REPO } from './load.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const runs = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 3);
const waitForLastBuild = process.argv.includes('--build');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function once(waitForBuild: boolean): Promise<Record<string, number>> {
  // The author's browser is open already: Chromium's own start is not the studio's.
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
  for (const dir of ['renderer', '.renderer-next', '.vite-dev']) fs.rmSync(path.join(REPO, 'out', dir), { recursive: true, force: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cold-start-'));
  const t0 = Date.now();
  const child = spawn(npm, ['start', '--', '--headless', '--port', '0', '--data-dir', dataDir], {
    cwd: REPO,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const times: Record<string, number> = {};
  let out = '';
  const seen = (re: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const check = () => {
        const m = re.exec(out);
        if (m) resolve(m);
      };
      child.stdout.on('data', (d) => ((out += d), check()));
      child.stderr.on('data', (d) => ((out += d), check()));
      child.once('exit', () => reject(new Error(`npm start exited:\n${out}`)));
      check();
    });
  const buildStart = seen(/building the renderer in the background/).then(() => (times.buildStarted = Date.now() - t0));
  const buildReady = seen(/production build is ready/).then(() => (times.buildReady = Date.now() - t0));
  void buildStart.catch(() => undefined);
  void buildReady.catch(() => undefined);
  try {
    const url = (await seen(/Open (http:\/\/\S+) in a browser/))[1]!;
    times.studioAnswers = Date.now() - t0;
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(url);
    await page.waitForSelector('#root[data-app-state="ready"]', { timeout: 120_000 });
    times.pageReady = Date.now() - t0;
    if (waitForBuild) await buildReady;
    return times;
  } finally {
    await browser.close();
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((r) => child.once('close', r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

console.log(`cold start, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(2)} at the start`);
for (let i = 1; i <= runs; i++) {
  const t = await once(waitForLastBuild && i === runs);
  console.log(
    `run ${i}: studio answers ${s(t.studioAnswers!)}, first page ready ${s(t.pageReady!)}, build started ${t.buildStarted ? s(t.buildStarted) : 'not yet'}` +
      (t.buildReady ? `, build ready ${s(t.buildReady)}` : ''),
  );
}
