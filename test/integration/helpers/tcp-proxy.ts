// A TCP proxy the test controls, in front of a shared server (PostgreSQL at 127.0.0.1:5432):
// an outage is made here, never by stopping the server. `cut()` destroys every open
// connection and stops listening (the client sees ECONNRESET, then ECONNREFUSED, as when
// the database host is down); `restore()` listens on the same port again.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Connections open through the proxy now. */
  readonly open: number;
  /** Cuts every open connection and refuses new ones until restore(). */
  cut(): void;
  /** Listens on the same port again. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  let listening: Promise<void> = Promise.resolve();
  return {
    port,
    get open() {
      return pairs.size;
    },
    cut() {
      server.close();
      for (const p of [...pairs]) {
        p.client.resetAndDestroy();
        p.upstream.destroy();
      }
      pairs.clear();
    },
    restore() {
      listening = listen(port);
      return listening;
    },
    close: async () => {
      await listening.catch(() => undefined);
      for (const p of pairs) {
        p.client.destroy();
        p.upstream.destroy();
      }
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
