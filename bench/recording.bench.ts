// What recording a run's calls costs (docs/runtime-traces.md, "Recorded calls"; D-93): the
// runtime's CPU per message/send on the example with RECORD_CALLS=on (every model call kept
// with its messages, parameters and key) against RECORD_CALLS=off, in one run. Both sides
// send every trace event to NATS (TRACE_SINKS=log,nats, a stream of the bench's own), as a
// deployed runtime that keeps recordings would, so the recorded events are built and
// shipped, not dropped. Two runtime processes, loaded in alternating rounds so drift on the
// machine hits both alike; CPU per request from /proc. Loopback only, bounded.
// Usage: node bin/run-ts.mjs bench/recording.bench.ts (NATS on 127.0.0.1:4222)
import { onOff, report } from './on-off.ts';

const nats = {
  TRACE_SINKS: 'log,nats',
  NATS_URL: 'nats://127.0.0.1:4222',
  TRACE_NATS_PREFIX: 'bench-recording',
  TRACE_NATS_STREAM: 'BENCH_RECORDING',
  TRACE_NATS_MAX_AGE: '60',
};
report('recording', await onOff('recording', { on: { ...nats, RECORD_CALLS: 'on' }, off: { ...nats, RECORD_CALLS: 'off' } }), 1.05);
