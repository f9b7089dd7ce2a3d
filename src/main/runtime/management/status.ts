// GET /api/v1/status (spec 4.2; legacy GET /status, spec 9.5): the state of every part of
// this runtime, read from the parts themselves when asked.
import type { AgentCard } from '@a2a-js/sdk';
import type { RuntimeStats } from '../observability/stats.ts';

/** Something with a status to show. */
export interface StatusSource {
  status(): unknown;
}

export interface StatusSources {
  agentId: string | null;
  /** The thread endpoints: on, or off with the code they answer (threads.ts). */
  threads: StatusSource;
  /** The structured-log trace sink is on (TRACE_LOG). */
  traceLog: boolean;
  card: Pick<AgentCard, 'url' | 'protocolVersion' | 'capabilities'>;
  stats: RuntimeStats;
  mcp: StatusSource;
  outbound: StatusSource;
  /** The trace sinks beyond the log by name (NATS, OpenTelemetry), none when off. */
  traceSinks: Record<string, StatusSource>;
  /** The registry change-event subscription, null when off. */
  registryEvents: StatusSource | null;
  /** Cluster-wide control through NATS, null when off. */
  control: StatusSource | null;
  /** The NATS connection the features above share: servers, credential kind, TLS (never a secret); null when none is on. */
  nats: unknown;
}

export function runtimeStatus(s: StatusSources) {
  const sinks = Object.fromEntries(Object.entries(s.traceSinks).map(([name, sink]) => [name, sink.status()]));
  return {
    agent_id: s.agentId,
    thread_management: s.threads.status(),
    mcp: s.mcp.status(),
    trace_sinks: { ...(s.traceLog ? { log: { state: 'on' } } : {}), ...sinks },
    registry_events: s.registryEvents?.status() ?? null,
    cluster_control: s.control?.status() ?? null,
    nats: s.nats ?? null,
    outbound: s.outbound.status(),
    a2a: {
      card_url: s.card.url,
      protocol_version: s.card.protocolVersion,
      streaming: s.card.capabilities.streaming === true,
      requests: { ...s.stats.requests },
      invocations: {
        total: s.stats.invocations,
        completed: s.stats.completed,
        failed: s.stats.failed,
        input_required: s.stats.input_required,
        canceled: s.stats.canceled,
      },
    },
  };
}
