// GET /compare on two runs with 1 MB outputs each (half text, half a DataPart with about
// 40,000 JSON paths, 1% of both changed), over HTTP against the headless studio, beside what
// a user would do instead: a unified diff of the two outputs pretty-printed as JSON (the same
// `diff` package), which says nothing of paths, scores or nodes.
// Usage: node bin/run-ts.mjs bench/compare.bench.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import pino from 'pino';
import { EventBus } from '../src/main/playground/events/bus.ts';
import { EventLog } from '../src/main/playground/events/log.ts';
import { newSessionId } from '../src/main/playground/ids.ts';
import { PlaygroundStore } from '../src/main/playground/store/store.ts';
import { insertTestRun } from '../src/main/playground/store/test-support.ts';
import { startStudio } from '../src/main/studio/studio.ts';
import type { TaggedPart } from '../src/shared/playground.ts';
import { REPO } from './load.ts';

const ROUNDS = 10;
const TARGET_MS = 200;

function output(variant: 'left' | 'right'): TaggedPart[] {
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < 500_000; i++) {
    const changed = variant === 'right' && i % 100 === 7;
    lines.push(`Line ${i}: the order ${changed ? 'has shipped' : 'is on its way'} and should arrive within five working days.`);
  }
  const items = Array.from({ length: 3300 }, (_, i) => ({
    id: `item-${i}`,
    sku: `SKU-${(i * 7919) % 100000}`,
    price: variant === 'right' && i % 100 === 3 ? i * 1.5 + 1 : i * 1.5,
    qty: i % 5,
    tags: ['a', 'b'],
    status: variant === 'right' && i % 100 === 5 ? 'backorder' : 'ok',
    warehouse: { id: `w${i % 9}`, city: 'Lyon' },
    note: 'x'.repeat(40),
  }));
  return [
    { kind: 'text', text: lines.join('\n') },
    { kind: 'data', data: { schema: 'bench.order/1', items } },
  ];
}

function spans(runId: string, log: EventLog, changed: boolean): void {
  const nodes = ['guardrail', 'router', 'skills', 'respond'];
  nodes.forEach((node, i) => {
    const span_id = `${runId}-${i}`;
    log.append(runId, 'trace', { name: 'span.start', data: { span_id, node, step: i + 1, kind: 'node' } });
    log.append(runId, 'trace', {
      name: 'span.end',
      data: { span_id, status: 'completed', duration_ms: 1, update: { node, value: changed && node === 'respond' ? 2 : 1 } },
    });
  });
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compare-'));
  const store = PlaygroundStore.open(path.join(dataDir, 'playground.sqlite'));
  const log = new EventLog(store, new EventBus());
  const session = store.insertSession(newSessionId(), 'bench', new Date().toISOString());
  const ids = (['left', 'right'] as const).map((variant) => {
    const id = insertTestRun(store, session.session_id, { input_parts: [{ kind: 'text', text: 'bench' }] });
    store.updateRun(id, {
      output_parts: output(variant),
      scores: [{ evaluator: 'tone', score: variant === 'left' ? 0.8 : 0.9 }],
      started_at: new Date(1_800_000_000_000).toISOString(),
      ended_at: new Date(1_800_000_000_000 + (variant === 'left' ? 1200 : 1350)).toISOString(),
    });
    spans(id, log, variant === 'right');
    log.append(id, 'run.status', { status: 'completed' });
    return id;
  });
  log.close();
  const bytes = JSON.stringify(store.getRun(ids[0])!.output_parts).length;
  store.close();

  const studio = await startStudio({ projectDir: path.join(REPO, 'examples/support-desk'), dataDir, logger: pino({ level: 'silent' }), runtimeCommand: false });
  const url = `${studio.url}api/playground/v1/compare?left=${ids[0]}&right=${ids[1]}`;
  try {
    const times: number[] = [];
    let body: any = null;
    let responseBytes = 0;
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      const res = await fetch(url);
      const text = await res.text();
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${text.slice(0, 200)}`);
      body = JSON.parse(text);
      times.push(performance.now() - t0);
      responseBytes = text.length;
    }
    const sorted = [...times].sort((a, b) => a - b);
    // The alternative, in process (no HTTP, no store): one unified diff of the outputs as JSON.
    const outs = [output('left'), output('right')].map((o) => JSON.stringify(o, null, 2));
    const naive: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t0 = performance.now();
      createTwoFilesPatch('left', 'right', outs[0], outs[1]);
      naive.push(performance.now() - t0);
    }
    naive.sort((a, b) => a - b);
    const median = sorted[Math.floor(ROUNDS / 2)];
    const naiveMedian = naive[Math.floor(ROUNDS / 2)];
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
    console.log(
      `outputs: ${(bytes / 1e6).toFixed(2)} MB per run; changes found: text +${body.output.text[0].lines_added}/-${body.output.text[0].lines_removed} lines, ${body.output.data[0].diff.changes.length} data paths, divergence at ${body.divergence.first?.node}`,
    );
    console.log(
      `GET /compare over HTTP: first ${times[0].toFixed(0)} ms, median ${median.toFixed(0)} ms, max ${sorted[ROUNDS - 1].toFixed(0)} ms (target < ${TARGET_MS}); response ${(responseBytes / 1e6).toFixed(2)} MB`,
    );
    console.log(`unified diff of the outputs as JSON, in process: median ${naiveMedian.toFixed(0)} ms`);
    console.log(`ratio compare / plain JSON diff: ${(median / naiveMedian).toFixed(2)}`);
    process.exitCode = median < TARGET_MS ? 0 : 1;
  } finally {
    await studio.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
