// Scrolling a 1,000-run conversation in the studio's transcript view (virtualised, each turn
// with Markdown and a data part), in Debian's Chromium, beside what a user would build
// instead: the same 1,000 turns as one plain HTML page with everything in the DOM. Both are
// scrolled top to bottom, one step per animation frame, and the frame times recorded.
// Needs the built renderer (npm run build:renderer) and /usr/bin/chromium.
// Usage: node bin/run-ts.mjs bench/transcript.bench.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { chromium, type Page } from 'playwright-core';
import { newSessionId } from '../src/main/playground/ids.ts';
import { PlaygroundStore } from '../src/main/playground/store/store.ts';
import { insertTestRun } from '../src/main/playground/store/test-support.ts';
import { startStudio } from '../src/main/studio/studio.ts';
import type { TaggedPart } from '../src/shared/playground.ts';
import { REPO } from './load.ts';

const TURNS = 1000;
const STEP_PX = 120;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

function answer(i: number): TaggedPart[] {
  return [
    {
      kind: 'text',
      text: `## Order ORD-${String(10000 + i)}\n\nYour order is **on its way** and should arrive within *five* working days.\n\n- carrier: Colissimo\n- parcel: ${i}\n\n\`\`\`json\n{"tracking": "FR${i}"}\n\`\`\``,
    },
    { kind: 'data', data: { schema: 'support.answer/1', orderId: `ORD-${10000 + i}`, status: 'shipped', eta_days: i % 5 } },
  ];
}

// In-page code goes as text: tsx names functions with a helper (`__name`) that the page lacks.
const SCROLL_SCRIPT = `(selector, step) => new Promise((resolve) => {
  const el = document.querySelector(selector);
  const frames = [];
  let last = performance.now();
  const tick = (now) => {
    frames.push(now - last);
    last = now;
    if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return resolve(frames.slice(1));
    el.scrollTop += step;
    requestAnimationFrame(tick);
  };
  el.scrollTop = 0;
  requestAnimationFrame((now) => { last = now; requestAnimationFrame(tick); });
})`;

/** The frame times (ms) while scrolling `selector` to its end, STEP_PX per frame. */
function scrollFrames(page: Page, selector: string): Promise<number[]> {
  return page.evaluate(`(${SCROLL_SCRIPT})(${JSON.stringify(selector)}, ${STEP_PX})`) as Promise<number[]>;
}

const COUNT_ELEMENTS = "document.querySelectorAll('*').length";

function summary(frames: number[]): { p50: number; p95: number; max: number; slow: number; n: number } {
  const s = [...frames].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { p50: at(0.5), p95: at(0.95), max: s[s.length - 1], slow: frames.filter((f) => f > 34).length / frames.length, n: frames.length };
}

const escape = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;');

function plainPage(turns: { input: string; output: TaggedPart[] }[]): string {
  const items = turns
    .map((t) => {
      const parts = t.output
        .map((p) =>
          p.kind === 'text'
            ? `<pre style="white-space:pre-wrap">${escape(p.text)}</pre>`
            : p.kind === 'data'
              ? `<pre>${escape(JSON.stringify(p.data, null, 2))}</pre>`
              : '',
        )
        .join('');
      return `<article><p><b>You</b> ${escape(t.input)}</p><div>${parts}</div></article>`;
    })
    .join('');
  return `<!doctype html><html><body style="margin:0"><div id="list" style="height:100vh;overflow:auto">${items}</div></body></html>`;
}

async function main() {
  if (!fs.existsSync(path.join(REPO, 'out/renderer/index.html'))) throw new Error('build the renderer first: npm run build:renderer');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-transcript-'));
  const store = PlaygroundStore.open(path.join(dataDir, 'playground.sqlite'));
  const session = store.insertSession(newSessionId(), 'bench: 1,000 turns', new Date().toISOString());
  const turns: { input: string; output: TaggedPart[] }[] = [];
  store.transaction(() => {
    for (let i = 0; i < TURNS; i++) {
      const input = `Where is my order ORD-${10000 + i}?`;
      const id = insertTestRun(store, session.session_id, { input_parts: [{ kind: 'text', text: input }] });
      store.updateRun(id, { output_parts: answer(i), started_at: new Date().toISOString(), ended_at: new Date().toISOString() });
      turns.push({ input, output: answer(i) });
    }
  });
  store.close();

  const studio = await startStudio({ projectDir: path.join(REPO, 'examples/support-desk'), dataDir, logger: pino({ level: 'silent' }), runtimeCommand: false });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-dev-shm-usage'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${studio.url}#/sessions/${session.session_id}`);
    await page.getByTestId('session-mode-conversation').click();
    const t0 = performance.now();
    await page.locator(`[data-testid="transcript"][data-turns="${TURNS}"]`).waitFor({ timeout: 60_000 });
    await page.getByTestId('turn').first().waitFor();
    const studioReady = performance.now() - t0;
    const studioNodes = (await await page.evaluate(COUNT_ELEMENTS)) as number;
    const studioFrames = summary(await scrollFrames(page, '[data-testid="transcript"]'));

    const plain = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const t1 = performance.now();
    await plain.setContent(plainPage(turns));
    await plain.evaluate('new Promise((r) => requestAnimationFrame(() => r(null)))');
    const plainReady = performance.now() - t1;
    const plainNodes = (await await plain.evaluate(COUNT_ELEMENTS)) as number;
    const plainFrames = summary(await scrollFrames(plain, '#list'));

    const f = (n: number) => n.toFixed(1);
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, chromium headless (no GPU), node ${process.version}`);
    console.log(`transcript of ${TURNS} turns, scrolled top to bottom at ${STEP_PX} px per frame`);
    console.log(
      `studio (virtualised, Markdown + data tree): shown in ${studioReady.toFixed(0)} ms, ${studioNodes} DOM elements; frames p50 ${f(studioFrames.p50)} ms, p95 ${f(studioFrames.p95)} ms, max ${f(studioFrames.max)} ms, ${(studioFrames.slow * 100).toFixed(1)} % over 34 ms (${studioFrames.n} frames)`,
    );
    console.log(
      `plain HTML page (everything in the DOM, no Markdown): shown in ${plainReady.toFixed(0)} ms, ${plainNodes} DOM elements; frames p50 ${f(plainFrames.p50)} ms, p95 ${f(plainFrames.p95)} ms, max ${f(plainFrames.max)} ms, ${(plainFrames.slow * 100).toFixed(1)} % over 34 ms (${plainFrames.n} frames)`,
    );
    console.log(
      `ratio studio / plain page: frame p95 ${(studioFrames.p95 / plainFrames.p95).toFixed(2)}, DOM elements ${(studioNodes / plainNodes).toFixed(2)}`,
    );
  } finally {
    await browser.close();
    await studio.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
