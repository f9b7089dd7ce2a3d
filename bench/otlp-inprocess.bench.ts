// What spans and the OpenTelemetry sink cost one invocation of the example, in-process, away
// from the HTTP server and the task store (docs/performance.md, "OpenTelemetry sink"): the
// example's graph run as a turn runs it (the turn's trace hook in the configurable, the stream
// consumer, invoke.start/end), with the OTLP sink exporting protobuf to a collector stand-in in
// another process, against the same with no sink (no span is described, no event built).
// Alternating blocks; CPU of this process per invocation; each "on" block includes exporting
// what it made (a flush). Model-call events are left out (no usage callback here).
// Usage: SCRIPTED_DELAY_MS=0 node bin/run-ts.mjs bench/otlp-inprocess.bench.ts [rounds] [block]
import { spawn } from 'node:child_process';
import os from 'node:os';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import pino from 'pino';
import { exampleGraph } from './example.ts';
import { TEXT } from './on-off.ts';
import { InvocationTracer } from '../src/main/runtime/observability/trace.ts';
import { OtlpTraceSink } from '../src/main/runtime/observability/trace-otlp.ts';
import { otlpSettings } from '../src/main/runtime/observability/otlp-settings.ts';
import { SpanTracker } from '../src/main/runtime/execution/spans.ts';
import { consumeGraphStream } from '../src/main/runtime/execution/graph-stream.ts';
import { TRACE_HOOK_KEY } from '../src/sdk/trace-hook.ts';

const ROUNDS = Number(process.argv[2] ?? 10);
const BLOCK = Number(process.argv[3] ?? 300);
const collector = spawn(
  process.execPath,
  [
    '-e',
    "const s=require('http').createServer((q,r)=>{q.resume();q.on('end',()=>r.writeHead(200,{'content-type':'application/x-protobuf'}).end())});s.listen(0,'127.0.0.1',()=>console.log(s.address().port))",
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const port = await new Promise<string>((r) => collector.stdout!.once('data', (d) => r(String(d).trim())));
const log = pino({ level: 'silent' });
const sink = new OtlpTraceSink({
  ...otlpSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` }, 'bench'),
  agentId: 'bench',
  replicaId: null,
  log,
});
const graph = await exampleGraph(new MemorySaver());
let n = 0;

async function invocation(on: boolean): Promise<void> {
  n += 1;
  const tracer = new InvocationTracer(on ? [sink] : [], { task_id: `t${n}`, context_id: `c${n}`, agent_id: 'bench', generation: 1 }, null);
  const spans = new SpanTracker((k, f) => tracer.emit(k, f), '.', { enabled: tracer.wants('span.end'), values: tracer.wantsValues() });
  tracer.emit('invoke.start', { parts: ['text'] });
  const input = {
    messages: [new HumanMessage(TEXT)],
    request: { text: TEXT, data: [], files: [], metadata: {}, contextId: `c${n}`, taskId: `t${n}` },
    response: null,
  };
  const stream = await graph.stream(input, {
    configurable: { thread_id: `c${n}`, [TRACE_HOOK_KEY]: spans },
    streamMode: ['updates', 'custom'],
    subgraphs: true,
    durability: 'exit',
  });
  await consumeGraphStream(stream as AsyncIterable<unknown>, { exitNode: 'respond', emit: (k, f) => tracer.emit(k, f), onToken() {} });
  tracer.emit('invoke.end', { state: 'completed' });
}

try {
  for (let i = 0; i < 300; i++) await invocation(i % 2 === 0);
  await sink.flush();
  const cpu = { on: [] as number[], off: [] as number[] };
  for (let r = 0; r < ROUNDS; r++) {
    for (const side of r % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < BLOCK; i++) await invocation(side === 'on');
      if (side === 'on') await sink.flush();
      const c = process.cpuUsage(c0);
      cpu[side].push((c.user + c.system) / 1000 / BLOCK);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const paired = median(cpu.on.map((v, i) => v / cpu.off[i]!));
  console.log(
    `CPU per invocation: on ${median(cpu.on).toFixed(3)} ms, off ${median(cpu.off).toFixed(3)} ms (medians of ${ROUNDS} blocks of ${BLOCK}): ratio ${(median(cpu.on) / median(cpu.off)).toFixed(3)}; median of the rounds' ratios ${paired.toFixed(3)}; load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
} finally {
  await sink.close(100);
  collector.kill();
}
