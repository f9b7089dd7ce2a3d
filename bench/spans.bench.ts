// What node spans cost (docs/runtime-traces.md): the runtime's CPU per message/send on the
// example with spans on (the default) against the same runtime with NODE_SPANS=off (the
// trace as it was before spans), in one run. Two runtime processes, loaded in alternating
// rounds so drift on the machine hits both alike; CPU per request from /proc.
// Loopback only, bounded. Usage: node bin/run-ts.mjs bench/spans.bench.ts
import { onOff, report } from './on-off.ts';

report('spans', await onOff('spans', { on: {}, off: { NODE_SPANS: 'off' } }), 1.1);
