// One way the runtime connects to NATS (trace sink, registry events, cluster control): the
// client's own reconnection once connected, and a retry every second until the first
// connection succeeds, logging why it did not. Resolves null when `closed()` turns true first.
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';

export async function connectNats(
  o: { servers: string; name: string; log: Logger; onError?: (message: string) => void },
  closed: () => boolean,
): Promise<NatsConnection | null> {
  while (!closed()) {
    try {
      return await connect({ servers: o.servers, name: o.name, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    } catch (err) {
      const message = (err as Error).message;
      o.onError?.(message);
      o.log.warn({ err: message, servers: o.servers }, `${o.name}: cannot connect to NATS; retrying every second`);
      await new Promise((r) => setTimeout(r, 1000).unref());
    }
  }
  return null;
}
