// Every NATS subject the runtime uses, built here and only here, and the permissions each
// feature needs (docs/security.md, "The message broker", whose table a test compares with
// natsPermissions(): a subject changed here without the page fails that test).

/** A NATS subject token: no dots, spaces or wildcards. */
export function subjectToken(s: string): string {
  const t = s.replace(/[^A-Za-z0-9_-]+/g, '_');
  return t || '_';
}

const agentToken = (agentId: string) => subjectToken(agentId || 'anonymous');

/** Trace sink: the agent's events are `<this>.<event name>` (docs/runtime-traces.md, "On NATS"). */
const traceAgentSubject = (prefix: string, agentId: string) => `${prefix}.${agentToken(agentId)}`;

/** Trace sink: one event. */
export const traceSubject = (prefix: string, agentId: string, event: string) => `${traceAgentSubject(prefix, agentId)}.${subjectToken(event)}`;

/** Cluster control: an agent's notifications, published and subscribed by its replicas. */
export const controlSubject = (prefix: string, agentId: string) => `${prefix}.${agentToken(agentId)}`;

/** Registry change events: the subject a registry publishes one agent's events on. */
export const registryEventSubject = (prefix: string, agentId: string) => `${prefix}.${agentToken(agentId)}`;

/** Registry change events: what every replica subscribes to (every agent's; others' are counted and ignored). */
export const registryEventSubscription = (prefix: string) => `${prefix}.>`;

/** The JetStream API subjects the trace sink calls (through @nats-io/jetstream). */
export const jetStreamApi = {
  /** jetstreamManager() checks the API with the account's info. */
  accountInfo: '$JS.API.INFO',
  streamInfo: (stream: string) => `$JS.API.STREAM.INFO.${stream}`,
  /** Only when the stream does not exist yet. */
  streamCreate: (stream: string) => `$JS.API.STREAM.CREATE.${stream}`,
};

export interface NatsSubjectSettings {
  agentId: string;
  inboxPrefix: string;
  trace: { prefix: string; stream: string };
  control: { prefix: string };
  registry: { prefix: string };
}

export interface FeaturePermissions {
  publish: string[];
  subscribe: string[];
}

/**
 * What each feature publishes and subscribes, as a NATS user's permissions. Replies travel on
 * `<inbox prefix>.>`: JetStream acks and API answers (trace sink), a followed task's events
 * (cluster control, both ways: the asking replica subscribes, the running one publishes),
 * registry outcomes (published to the event's reply subject or `reply_to`).
 */
export function natsPermissions(s: NatsSubjectSettings): Record<'trace' | 'control' | 'registry' | 'registryEventCommand', FeaturePermissions> {
  const inbox = `${s.inboxPrefix}.>`;
  return {
    trace: {
      publish: [
        `${traceAgentSubject(s.trace.prefix, s.agentId)}.*`,
        jetStreamApi.accountInfo,
        jetStreamApi.streamInfo(s.trace.stream),
        jetStreamApi.streamCreate(s.trace.stream),
      ],
      subscribe: [inbox],
    },
    control: { publish: [controlSubject(s.control.prefix, s.agentId), inbox], subscribe: [controlSubject(s.control.prefix, s.agentId), inbox] },
    registry: { publish: [inbox], subscribe: [registryEventSubscription(s.registry.prefix)] },
    registryEventCommand: { publish: [registryEventSubject(s.registry.prefix, s.agentId)], subscribe: [inbox] },
  };
}
