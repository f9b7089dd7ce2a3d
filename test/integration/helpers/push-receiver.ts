// A webhook receiver on loopback for the push-notification tests: records every POST (path,
// headers, JSON body) and answers each path from a plan (status codes in order, or 'hang' to
// never answer), 200 once the plan is used up.
import http from 'node:http';
import { EventEmitter } from 'node:events';
import type { AddressInfo } from 'node:net';

export interface Hit {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

export interface Receiver {
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  hits: Hit[];
  /** Answers for `path`, in order. */
  plan(path: string, answers: (number | 'hang')[]): void;
  /** Resolves with the hits matching `pred` once there are `n` of them. */
  until(pred: (h: Hit) => boolean, n?: number, timeoutMs?: number): Promise<Hit[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const hits: Hit[] = [];
  const arrivals = new EventEmitter();
  const plans = new Map<string, (number | 'hang')[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        body = Buffer.concat(chunks).toString('utf8');
      }
      const path = req.url ?? '/';
      const answer = plans.get(path)?.shift() ?? 200;
      hits.push({ path, headers: req.headers, body });
      arrivals.emit('hit');
      if (answer !== 'hang') res.writeHead(answer, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    port,
    hits,
    plan: (path, answers) => plans.set(path, [...answers]),
    until: (pred, n = 1, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = hits.filter(pred);
          if (found.length < n) return false;
          arrivals.off('hit', check);
          clearTimeout(timer);
          resolve(found);
          return true;
        };
        const timer = setTimeout(() => {
          arrivals.off('hit', check);
          reject(
            new Error(
              `the receiver got ${hits.filter(pred).length} of ${n} expected notifications: ${JSON.stringify(hits.map((h) => [h.path, h.body?.status?.state]))}`,
            ),
          );
        }, timeoutMs);
        if (!check()) arrivals.on('hit', check);
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
