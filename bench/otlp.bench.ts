// What the OpenTelemetry sink costs (docs/runtime-traces.md, "OpenTelemetry"): the runtime's
// CPU per message/send on the example with TRACE_SINKS=log,otlp (protobuf to a local
// collector stand-in that accepts every export) against the same runtime with TRACE_SINKS=log,
// in one run. Two runtime processes, loaded in alternating rounds so drift on the machine hits
// both alike; CPU per request from /proc. Loopback only, bounded.
// Usage: node bin/run-ts.mjs bench/otlp.bench.ts
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { onOff, report } from './on-off.ts';

let exports = 0;
let bytes = 0;
const collector = http.createServer((req, res) => {
  req.on('data', (c: Buffer) => (bytes += c.length));
  req.on('end', () => {
    exports++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
try {
  const cpu = await onOff(
    'otlp',
    {
      on: { TRACE_SINKS: 'log,otlp', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
      off: { TRACE_SINKS: 'log', ...(process.env.BENCH_OFF_STAGE_TIMING ? { STAGE_TIMING: 'true' } : {}) },
    },
    async (on) => {
      const status = (await (await fetch(`${on.url}api/v1/status`)).json()) as { data: { trace_sinks: { otlp: Record<string, unknown> } } };
      console.log(`collector: ${exports} exports, ${(bytes / 1024).toFixed(0)} KiB; sink status ${JSON.stringify(status.data.trace_sinks.otlp)}`);
    },
  );
  report('otlp', cpu, 1.03);
} finally {
  collector.close();
}
