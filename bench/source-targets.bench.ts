// How fast "Go to source" answers (GET /api/playground/v1/source-targets/{node}): the first
// request (worker start, ts-morph's first parse of the project), then warm requests, then
// the first request after an edit (only the changed file is re-read), on the example, over
// HTTP against the headless studio. Usage: node bin/run-ts.mjs bench/source-targets.bench.ts
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startStudio } from '../src/main/studio/studio.ts';
import { REPO } from './load.ts';

const WARM = 40;

async function main() {
  const projectDir = fs.mkdtempSync(path.join(REPO, 'test', '.tmp', 'bench-targets-'));
  fs.cpSync(path.join(REPO, 'examples/support-desk'), projectDir, { recursive: true, filter: (s) => !s.includes('.agent-studio') });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-targets-data-'));
  const studio = await startStudio({ projectDir, dataDir, logger: pino({ level: 'silent' }), runtimeCommand: false });
  const get = async (node: string) => {
    const t0 = performance.now();
    const res = await fetch(`${studio.url}api/playground/v1/source-targets/${node}`);
    await res.json();
    if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
    return performance.now() - t0;
  };
  try {
    const first = await get('respond');
    const warm: number[] = [];
    for (let i = 0; i < WARM; i++) warm.push(await get(['guardrail', 'router', 'skills', 'respond'][i % 4]));
    warm.sort((a, b) => a - b);
    const graph = path.join(projectDir, 'src/graph.ts');
    fs.writeFileSync(graph, `// edited\n${fs.readFileSync(graph, 'utf8')}`);
    const afterEdit = await get('respond');
    console.log(`machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`);
    console.log(`first request     : ${first.toFixed(0)} ms (target < 3000)`);
    console.log(`warm, ${WARM} requests: p50 ${warm[Math.floor(WARM / 2)].toFixed(1)} ms, max ${warm[WARM - 1].toFixed(1)} ms (target < 300)`);
    console.log(`after an edit     : ${afterEdit.toFixed(1)} ms`);
    process.exitCode = first < 3000 && warm[WARM - 1] < 300 ? 0 : 1;
  } finally {
    await studio.close();
    fs.rmSync(projectDir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
