// The top bar's runtime chip (docs/studio-ui.md): the runtime child's state, and where its trace
// spans go beyond the log (the OpenTelemetry exporter: its state, what it exported, what waits
// in its buffer, what it dropped, its last error), as the runtime's /api/v1/status shows them.
import type { TraceSinkState } from '../../../shared/studio-api.ts';
import { useRuntimeStatus, useTraceSinks } from '../api/runtime.ts';

const SINK_NAMES: Record<string, string> = { otlp: 'OpenTelemetry', nats: 'NATS' };

function sinkText(name: string, s: TraceSinkState): string {
  const counts = [
    s.exported !== undefined ? `${s.exported} exported` : null,
    s.buffered ? `${s.buffered} buffered` : null,
    s.dropped ? `${s.dropped} dropped` : null,
  ].filter(Boolean);
  return `Spans → ${SINK_NAMES[name] ?? name}${s.state ? ` · ${s.state}` : ''}${counts.length ? ` · ${counts.join(', ')}` : ''}`;
}

function sinkTitle(s: TraceSinkState): string {
  return [
    s.endpoint ? `Endpoint: ${s.endpoint}` : null,
    s.protocol ? `Protocol: ${s.protocol}` : null,
    s.sampler ? `Sampler: ${s.sampler}` : null,
    s.failed_exports ? `Failed exports: ${s.failed_exports}` : null,
    s.last_error ? `Last error: ${s.last_error}` : null,
  ]
    .filter(Boolean)
    .join('\n');
}

export function RuntimeState() {
  const status = useRuntimeStatus().data;
  const running = status !== undefined && status.state === 'ready';
  const sinks = useTraceSinks(running).data;
  if (!status || status.state === 'disabled') return null;
  const shown = running && sinks?.available ? Object.entries(sinks.trace_sinks).filter(([name]) => name !== 'log') : [];
  return (
    <span className="topbar__runtime" data-testid="runtime-state" data-state={status.state}>
      <span className={`topbar__state topbar__state--runtime-${status.state}`} title={status.last_error ?? undefined}>
        Runtime {status.state}
      </span>
      {shown.map(([name, s]) => (
        <span
          key={name}
          className={`topbar__state topbar__sink${s.last_error || s.dropped ? ' topbar__sink--trouble' : ''}`}
          data-testid={`trace-sink-${name}`}
          data-state={s.state ?? ''}
          title={sinkTitle(s)}
        >
          {sinkText(name, s)}
        </span>
      ))}
    </span>
  );
}
