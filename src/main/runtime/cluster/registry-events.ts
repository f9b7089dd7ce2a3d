// Registry change events from NATS (spec 6.4; docs/runtime-traces.md "Registry change
// events"). A registry publishes `{agent_id, version?, components?, reason?}` on
// `<prefix>.<agent id>`; every replica of that agent reloads its project exactly as
// POST /api/v1/registry/reload does (a new generation when something changed, diagnostics
// and the old generation kept when the project does not load, in-flight runs finishing on
// their generation) and reports the outcome on the message's reply subject, or on
// `reply_to` when the event names one. Events for other agents are ignored (counted).
import { connectNats } from './nats.ts';
import type { Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import { registryEventSubject, registryEventSubscription } from './nats-subjects.ts';
import type { NatsSettings } from './nats-settings.ts';
import { MessageSigner } from './signing.ts';

export interface RegistryChangeEvent {
  agent_id: string;
  /** The registry's version of this change (echoed in the outcome). */
  version?: string;
  /** What changed, as the registry sees it: `{kind, name?, ref?}` (informative). */
  components?: { kind: string; name?: string; ref?: string }[];
  reason?: string;
  /** Where to report the outcome when the message has no reply subject. */
  reply_to?: string;
}

export interface RegistryEventOutcome {
  agent_id: string;
  replica: string;
  version: string | null;
  outcome: 'reloaded' | 'unchanged' | 'failed' | 'invalid';
  generation?: number;
  previous_generation?: number;
  changed?: unknown[];
  error?: { code: string; message: string; diagnostics?: unknown };
}

export interface RegistryEventsOptions {
  nats: NatsSettings;
  prefix: string;
  /** REGISTRY_EVENTS_SECRET: when set, only events signed with it are acted on (signing.ts). */
  secret: Buffer | null;
  agentId: string;
  replica: string;
  /** What POST /api/v1/registry/reload runs; throws a ManagementError (`code`, `message`, `extra.diagnostics`) on failure. */
  reload: () => Promise<{ reloaded: boolean; generation: number; previous_generation: number; changed: unknown[] }>;
  log: Logger;
}

export class RegistryEvents {
  private nc: NatsConnection | null = null;
  private sub: Subscription | null = null;
  private closed = false;
  private chain: Promise<void> = Promise.resolve();
  private readonly counts = { received: 0, ignored: 0, reloaded: 0, unchanged: 0, failed: 0, invalid: 0, refused: 0 };
  private readonly signer: MessageSigner | null;
  private state: 'connecting' | 'subscribed' | 'closed' = 'connecting';
  private lastError: string | null = null;
  constructor(private readonly o: RegistryEventsOptions) {
    this.signer = o.secret ? new MessageSigner(o.secret) : null;
    void this.start();
  }

  get subject(): string {
    return registryEventSubject(this.o.prefix, this.o.agentId);
  }

  status() {
    return { state: this.state, subject: this.subject, signed: this.signer !== null, ...this.counts, last_error: this.lastError };
  }

  private async start(): Promise<void> {
    this.nc = await connectNats(
      { nats: this.o.nats, name: `agent-runtime ${this.o.agentId} registry`, log: this.o.log, onError: (m) => (this.lastError = m) },
      () => this.closed,
    );
    if (this.closed || !this.nc) return;
    // Every agent's subject: an event for another agent is seen, counted and ignored, so an
    // operator can tell "not for me" from "never arrived" in the status.
    this.sub = this.nc.subscribe(registryEventSubscription(this.o.prefix), {
      callback: (err, msg) => (err ? this.o.log.warn({ err: err.message }, 'registry events subscription error') : this.onMessage(msg)),
    });
    await this.nc.flush();
    this.state = 'subscribed';
  }

  private onMessage(msg: Msg): void {
    this.counts.received += 1;
    const refused = this.signer?.verify(msg.subject, msg.data, msg.headers);
    if (refused) {
      this.counts.refused += 1;
      this.o.log.warn({ subject: msg.subject, reason: refused }, 'registry events: refused an event (REGISTRY_EVENTS_SECRET is set; docs/security.md)');
      return;
    }
    let event: RegistryChangeEvent;
    try {
      event = msg.json<RegistryChangeEvent>();
      if (!event || typeof event !== 'object' || typeof event.agent_id !== 'string') throw new Error('agent_id (a string) is required');
    } catch (err) {
      this.counts.invalid += 1;
      if (msg.subject === this.subject) {
        this.respond(msg, undefined, {
          agent_id: this.o.agentId,
          replica: this.o.replica,
          version: null,
          outcome: 'invalid',
          error: { code: 'INVALID_EVENT', message: (err as Error).message },
        });
      }
      return;
    }
    if (event.agent_id !== this.o.agentId) {
      this.counts.ignored += 1;
      return;
    }
    // One reload at a time, in arrival order.
    this.chain = this.chain.then(() => this.apply(msg, event));
  }

  private async apply(msg: Msg, event: RegistryChangeEvent): Promise<void> {
    const base = { agent_id: this.o.agentId, replica: this.o.replica, version: event.version ?? null };
    this.o.log.info({ version: event.version, components: event.components, reason: event.reason }, 'registry change event: reloading');
    let outcome: RegistryEventOutcome;
    try {
      const r = await this.o.reload();
      outcome = {
        ...base,
        outcome: r.reloaded ? 'reloaded' : 'unchanged',
        generation: r.generation,
        previous_generation: r.previous_generation,
        changed: r.changed,
      };
    } catch (err) {
      const e = err as { code?: string; message?: string; extra?: { diagnostics?: unknown } };
      outcome = {
        ...base,
        outcome: 'failed',
        error: { code: e.code ?? 'RELOAD_FAILED', message: e.message ?? String(err), ...(e.extra?.diagnostics ? { diagnostics: e.extra.diagnostics } : {}) },
      };
    }
    this.counts[outcome.outcome] += 1;
    this.respond(msg, event, outcome);
  }

  private respond(msg: Msg, event: RegistryChangeEvent | undefined, outcome: RegistryEventOutcome): void {
    const to = msg.reply || event?.reply_to;
    if (!to || !this.nc) return;
    try {
      this.nc.publish(to, JSON.stringify(outcome));
    } catch (err) {
      this.o.log.warn({ err: (err as Error).message }, 'registry events: could not report the outcome');
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.state = 'closed';
    await this.chain.catch(() => undefined);
    this.sub?.unsubscribe();
    await this.nc?.drain().catch(() => undefined);
  }
}
