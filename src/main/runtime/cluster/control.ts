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
import { createInbox, type NatsConnection, type Subscription } from '@nats-io/nats-core';
import { connectNats } from './nats.ts';
import type { Logger } from 'pino';
import { subjectToken } from '../observability/trace-nats.ts';

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
  servers: string;
  prefix: string;
  agentId: string;
  replica: string;
  log: Logger;
}

export class ClusterControl {
  private nc: NatsConnection | null = null;
  private sub: Subscription | null = null;
  private closed = false;
  private handlers: ControlHandlers | null = null;
  private readonly counts = { sent: 0, received: 0 };

  constructor(private readonly o: ClusterControlOptions) {}

  get subject(): string {
    return `${this.o.prefix}.${subjectToken(this.o.agentId || 'anonymous')}`;
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
    this.nc = await connectNats({ servers: this.o.servers, name: `agent-runtime ${this.o.agentId} control`, log: this.o.log }, () => this.closed);
    if (this.closed || !this.nc) return;
    this.sub = this.nc.subscribe(this.subject, {
      callback: (err, m) => {
        if (err) return this.o.log.warn({ err: err.message }, 'cluster control subscription error');
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
            (event) => nc.publish(msg.inbox, JSON.stringify({ event })),
            () => nc.publish(msg.inbox, JSON.stringify({ done: true })),
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
      this.nc.publish(this.subject, JSON.stringify({ origin: this.o.replica, msg } satisfies Envelope));
      this.counts.sent += 1;
    } catch (err) {
      this.o.log.warn({ op: msg.op, err: (err as Error).message }, 'cluster control: could not notify the other replicas');
    }
  }

  /**
   * Follows a task running on another replica: asks for its events on a fresh inbox and
   * yields them until the running replica says it is done. Resolves to null when no replica
   * answers within `firstEventMs` (the task is not running anywhere reachable).
   */
  async follow(taskId: string, firstEventMs = 2_000): Promise<AsyncGenerator<unknown> | null> {
    const nc = this.nc;
    if (!nc) return null;
    const inbox = createInbox();
    const sub = nc.subscribe(inbox);
    const it = sub[Symbol.asyncIterator]();
    this.publish({ op: 'follow', task_id: taskId, inbox });
    const first = await Promise.race([it.next(), new Promise<null>((r) => setTimeout(() => r(null), firstEventMs))]);
    if (!first || first.done) {
      sub.unsubscribe();
      return null;
    }
    async function* events(): AsyncGenerator<unknown> {
      let next: IteratorResult<{ json<T>(): T }> | null = first as IteratorResult<{ json<T>(): T }>;
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

  async close(): Promise<void> {
    this.closed = true;
    this.sub?.unsubscribe();
    await this.nc?.drain().catch(() => undefined);
  }
}
