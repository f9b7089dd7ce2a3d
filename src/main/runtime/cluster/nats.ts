// One way the runtime connects to NATS (trace sink, registry events, cluster control): the
// credentials and TLS of the settings (nats-settings.ts), the client's own reconnection once
// connected, and a retry every second until the first connection succeeds, logging why it did
// not (the client's message: it names the failure, never the credential). Resolves null when
// `closed()` turns true first.
import { connect } from '@nats-io/transport-node';
import type { ConnectionOptions, NatsConnection } from '@nats-io/nats-core';
import type { Logger } from 'pino';
import type { NatsSettings } from './nats-settings.ts';

/** The client's options for `s`: servers, authenticator, TLS, inbox prefix. */
export function natsConnectOptions(s: NatsSettings): ConnectionOptions {
  return {
    // nats.js reads host:port and ignores the scheme: TLS is asked with `tls`.
    servers: s.servers,
    ...(s.authenticator ? { authenticator: s.authenticator } : {}),
    ...(s.tls ? { tls: s.tls } : {}),
    inboxPrefix: s.inboxPrefix,
    // Without it the client builds an Error (a stack trace) for every publish and request
    // in case it later times out: about 5 % of a request's CPU with the NATS trace sink
    // (docs/performance.md). Our errors are logged by message, never by that stack.
    noAsyncTraces: true,
  };
}

export async function connectNats(
  o: { nats: NatsSettings; name: string; log: Logger; onError?: (message: string) => void },
  closed: () => boolean,
): Promise<NatsConnection | null> {
  let lastMessage = '';
  while (!closed()) {
    try {
      return await connect({ ...natsConnectOptions(o.nats), name: o.name, reconnect: true, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
    } catch (err) {
      const message = (err as Error).message;
      o.onError?.(message);
      // The same failure every second is logged once, until it changes.
      if (message !== lastMessage)
        o.log.warn({ err: message, servers: o.nats.servers.join(','), auth: o.nats.auth }, `${o.name}: cannot connect to NATS; retrying every second`);
      lastMessage = message;
      await new Promise((r) => setTimeout(r, 1000).unref());
    }
  }
  return null;
}
