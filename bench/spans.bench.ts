// What node spans cost (docs/runtime-traces.md, "Node spans"): the runtime's CPU per
// message/send on the example with spans on (the default) against the same runtime with
// NODE_SPANS=off, in one run. Both sides send every trace event to NATS (TRACE_SINKS=log,nats,
// a stream of the bench's own), a sink that keeps spans: without one (the bench's
// LOG_LEVEL=warn keeps none) neither side would build a span. Two runtime processes, loaded in
// alternating rounds so drift on the machine hits both alike; CPU per request from /proc.
// Loopback only, bounded. Usage: node bin/run-ts.mjs bench/spans.bench.ts (NATS on 127.0.0.1:4222)
import { onOff, report } from './on-off.ts';

const nats = {
  TRACE_SINKS: 'log,nats',
  NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
  TRACE_NATS_PREFIX: 'bench-spans',
  TRACE_NATS_STREAM: 'BENCH_SPANS',
  TRACE_NATS_MAX_AGE: '60',
};
report('spans', await onOff('spans', { on: nats, off: { ...nats, NODE_SPANS: 'off' } }), 1.1);
