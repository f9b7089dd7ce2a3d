// What replaying a run costs (docs/playground-api.md, "Replay"; D-91): the real studio and
// runtime child on a project whose four fan-out branches each call the model five times (20
// model calls a run), offline with a zero-latency scripted model. The same input is rerun
// alternately live and replayed from a recorded run; the overhead of a replay is the median
// replayed run's duration minus the median live one's (the studio reading the recording and
// building the plan, the plan on the wire, the runtime keying, hashing and answering each
// call). Target: under 100 ms. Loopback only, bounded.
// Usage: node bin/run-ts.mjs bench/replay.bench.ts [pairs]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startStudio } from '../src/main/studio/studio.ts';
import { REPO } from './load.ts';

const PAIRS = Number(process.argv[2] ?? 8);
const dir = path.join(REPO, 'test/.tmp', `bench-replay-${process.pid}`);
fs.cpSync(path.join(REPO, 'examples/support-desk'), dir, { recursive: true, filter: (s) => !s.includes('.agent-studio') && !s.endsWith('.env') });
fs.writeFileSync(path.join(dir, '.env'), 'SCRIPTED_DELAY_MS=0\nSCRIPTED_CHUNKS=1\n');
fs.writeFileSync(
  path.join(dir, 'src/graph.ts'),
  `import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { HumanMessage } from '@langchain/core/messages';
import { AgentState, createChatModel, fanOut, type AgentContext } from 'agent-studio/sdk';
const State = Annotation.Root({ ...AgentState.spec, notes: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }) });
export function createGraph(ctx: AgentContext) {
  const model = createChatModel(ctx, (m) => 'noted: ' + String(m.at(-1)?.content).slice(0, 60));
  const work = async () => {
    const notes = await fanOut(['a', 'b', 'c', 'd'], async (label) => {
      let last = label;
      for (let i = 0; i < 5; i++) last = String((await model.invoke([new HumanMessage(label + ' step ' + i + ': ' + last)])).content);
      return last;
    }, { label: (l) => l });
    return { notes };
  };
  const respond = async (s: typeof State.State) => ({ response: { text: s.notes.join(' | ') } });
  return new StateGraph(State).addNode('work', work).addNode('respond', respond).addEdge(START, 'work').addEdge('work', 'respond').addEdge('respond', END);
}
`,
);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-replay-'));
const studio = await startStudio({ projectDir: dir, port: 0, dataDir, logger: pino({ level: 'silent' }) });
const api = `${studio.url}api/playground/v1`;
const call = async (method: string, p: string, body?: unknown) => {
  const r = await fetch(`${api}${p}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return (await r.json()) as any;
};
const finished = async (runId: string) => {
  for (;;) {
    const r = await call('GET', `/runs/${runId}`);
    if (['completed', 'failed', 'cancelled', 'input_required'].includes(r.status)) return r;
    await new Promise((res) => setTimeout(res, 10));
  }
};
try {
  await studio.runtime.waitReady(60_000);
  const s = await call('POST', '/sessions', {});
  const first = await finished(
    (await call('POST', `/sessions/${s.session_id}/runs`, { parts: [{ kind: 'text', text: 'go' }], metadata: { scriptedDelayMs: 0, scriptedChunks: 1 } }))
      .run_id,
  );
  const calls = (await call('GET', `/runs/${first.run_id}/calls`)).items.length;
  console.log(
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}, load ${os.loadavg()[0].toFixed(1)}; recorded run: ${calls} calls, ${first.duration_ms} ms`,
  );
  const live: number[] = [];
  const replayed: number[] = [];
  for (let i = 0; i < PAIRS + 1; i++) {
    const order = i % 2 ? ['replay', 'live'] : ['live', 'replay'];
    for (const kind of order) {
      const r = await finished((await call('POST', `/runs/${first.run_id}/rerun`, kind === 'replay' ? { replay: { on_mismatch: 'error' } } : {})).run_id);
      if (r.status !== 'completed') throw new Error(`${kind} run ${r.run_id} ended ${r.status}`);
      if (i > 0) (kind === 'live' ? live : replayed).push(r.duration_ms);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const overhead = median(replayed) - median(live);
  console.log(`live runs (zero-latency model): ${live.join(', ')} ms; replayed: ${replayed.join(', ')} ms`);
  console.log(`median live ${median(live)} ms, replayed ${median(replayed)} ms: replay overhead ${overhead} ms for ${calls} calls (target < 100 ms)`);
  process.exitCode = overhead < 100 ? 0 : 1;
} finally {
  await studio.close();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}
