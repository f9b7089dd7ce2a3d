// cluster/ owns running as several processes: node:cluster workers (workers.ts), the NATS
// connection (nats.ts), cluster-wide control between replicas (here, commands.ts,
// cancels.ts), and registry change events (registry-events.ts, registry-event-cli.ts).
//
// Cluster-wide control through NATS (docs/deployment.md, "Cluster-wide control"): what one
// replica is asked to do for the whole agent reaches the others as a notification on
// `<prefix>.<agent id>`. The database stays the source of truth; NATS only carries news:
//   cancel         the replica running the task cancels it now (the task row's flag stays the
//                  fallback when a notification is lost);
//   card-url       the served card's URL, as PATCH /api/v1/card/url set it elsewhere;
//   memory-config  the changeable memory settings, as PATCH /api/v1/memory/config set them;
//   reload         the registry reload, as POST /api/v1/registry/reload ran it;
//   follow         "stream task T's events to this inbox": tasks/resubscribe on a replica
//                  that does not run T, answered by the one that does.
// Every notification, and every event streamed to a follower's inbox, is signed with
// CLUSTER_CONTROL_SECRET (signing.ts, D-48): one that is unsigned, badly signed, stale or
// replayed is refused with a warning, so only the agent's own replicas can act through NATS.
import { createInbox, type Msg, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import { connectNats } from './nats.ts';
import type { Logger } from 'pino';
import type { NatsSettings } from './nats-settings.ts';
import { controlSubject } from './nats-subjects.ts';
import { MessageSigner } from './signing.ts';

export type ControlMessage =
  | { op: 'cancel'; task_id: string }
  | { op: 'card-url'; url: string }
  | { op: 'memory-config'; values: Record<string, unknown> }
  | { op: 'reload' }
  | { op: 'follow'; task_id: string; inbox: string };

interface Envelope {
  origin: string;
  msg: ControlMessage;
}

export interface ControlHandlers {
  cancel(taskId: string): void;
  cardUrl(url: string): void;
  memoryConfig(values: Record<string, unknown>): void;
  reload(): Promise<unknown>;
  /** Streams a task's events to `publish` when this replica runs it; false otherwise. */
  follow(taskId: string, publish: (event: unknown) => void, done: () => void): boolean;
}

export interface ClusterControlOptions {
  nats: NatsSettings;
  prefix: string;
  /** CLUSTER_CONTROL_SECRET, the same on every replica. */
  secret: Buffer;
  agentId: string;
  replica: string;
  log: Logger;
}

export class ClusterControl {
  private nc: NatsConnection | null = null;
  private sub: Subscription | null = null;
  private closed = false;
  private handlers: ControlHandlers | null = null;
  private readonly counts = { sent: 0, received: 0, refused: 0 };
  private readonly signer: MessageSigner;

  constructor(private readonly o: ClusterControlOptions) {
    this.signer = new MessageSigner(o.secret);
  }

  get subject(): string {
    return controlSubject(this.o.prefix, this.o.agentId);
  }

  get connected(): boolean {
    return this.sub !== null && !this.closed;
  }

  /** Connects and serves the other replicas' notifications with `handlers`, this runtime's
   * side of each operation: the last step of building the runtime (start.ts). */
  start(handlers: ControlHandlers): void {
    if (this.handlers) return;
    this.handlers = handlers;
    void this.connect();
  }

  status() {
    return { state: this.closed ? 'closed' : this.sub ? 'subscribed' : 'connecting', subject: this.subject, ...this.counts };
  }

  private async connect(): Promise<void> {
    this.nc = await connectNats({ nats: this.o.nats, name: `agent-runtime ${this.o.agentId} control`, log: this.o.log }, () => this.closed);
    if (this.closed || !this.nc) return;
    this.sub = this.nc.subscribe(this.subject, {
      callback: (err, m) => {
        if (err) return this.o.log.warn({ err: err.message }, 'cluster control subscription error');
        if (!this.genuine(m)) return;
        let env: Envelope;
        try {
          env = m.json<Envelope>();
        } catch {
          return this.o.log.warn({ subject: m.subject }, 'cluster control: a message that is not JSON; ignored');
        }
        if (env.origin === this.o.replica) return; // our own news
        this.counts.received += 1;
        void this.apply(env.msg);
      },
    });
    await this.nc.flush();
  }

  /** Whether `m` was signed by a replica holding the secret, and is new (logged when not). */
  private genuine(m: Msg): boolean {
    const refused = this.signer.verify(m.subject, m.data, m.headers);
    if (!refused) return true;
    this.counts.refused += 1;
    this.o.log.warn({ subject: m.subject, reason: refused }, 'cluster control: refused a message not signed with CLUSTER_CONTROL_SECRET (docs/security.md)');
    return false;
  }

  /** Publishes `body` on `subject`, signed. */
  private send(nc: NatsConnection, subject: string, body: unknown): void {
    const data = JSON.stringify(body);
    nc.publish(subject, data, { headers: this.signer.sign(subject, data) });
  }

  private async apply(msg: ControlMessage): Promise<void> {
    const h = this.handlers;
    if (!h) return;
    try {
      switch (msg.op) {
        case 'cancel':
          h.cancel(msg.task_id);
          break;
        case 'card-url':
          h.cardUrl(msg.url);
          break;
        case 'memory-config':
          h.memoryConfig(msg.values);
          break;
        case 'reload':
          await h.reload();
          break;
        case 'follow': {
          const nc = this.nc;
          if (!nc) break;
          h.follow(
            msg.task_id,
            (event) => this.send(nc, msg.inbox, { event }),
            () => this.send(nc, msg.inbox, { done: true }),
          );
          break;
        }
      }
    } catch (err) {
      this.o.log.warn({ op: msg.op, err: (err as Error).message }, 'cluster control: applying a notification failed');
    }
  }

  /** Tells every other replica of the agent; never throws (a lost notification has a fallback
   * or is documented). */
  publish(msg: ControlMessage): void {
    if (!this.nc || this.closed) return;
    try {
      this.send(this.nc, this.subject, { origin: this.o.replica, msg } satisfies Envelope);
      this.counts.sent += 1;
    } catch (err) {
      this.o.log.warn({ op: msg.op, err: (err as Error).message }, 'cluster control: could not notify the other replicas');
    }
  }

  /**
   * Follows a task running on another replica: asks for its events on a fresh inbox and
   * yields them until the running replica says it is done. Resolves to null when no replica
   * answers within `firstEventMs` (the task is not running anywhere reachable). `signal`
   * ends the subscription (and so the events) when the follower stops waiting.
   */
  async follow(taskId: string, firstEventMs = 2_000, signal?: AbortSignal): Promise<AsyncGenerator<unknown> | null> {
    const nc = this.nc;
    if (!nc) return null;
    const inbox = createInbox(this.o.nats.inboxPrefix);
    const sub = nc.subscribe(inbox);
    signal?.addEventListener('abort', () => sub.unsubscribe(), { once: true });
    const it = this.signedOnly(sub);
    this.publish({ op: 'follow', task_id: taskId, inbox });
    const first = await Promise.race([it.next(), new Promise<null>((r) => setTimeout(() => r(null), firstEventMs))]);
    if (!first || first.done) {
      sub.unsubscribe();
      return null;
    }
    async function* events(): AsyncGenerator<unknown> {
      let next: IteratorResult<Msg> | null = first as IteratorResult<Msg>;
      try {
        while (next && !next.done) {
          const body = next.value.json<{ event?: unknown; done?: boolean }>();
          if (body.done) return;
          yield body.event;
          next = await it.next();
        }
      } finally {
        sub.unsubscribe();
      }
    }
    return events();
  }

  /** The messages of `sub` that are genuine (a forged event on a follower's inbox is dropped). */
  private async *signedOnly(sub: Subscription): AsyncGenerator<Msg> {
    for await (const m of sub) if (this.genuine(m)) yield m;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.sub?.unsubscribe();
    await this.nc?.drain().catch(() => undefined);
  }
}
