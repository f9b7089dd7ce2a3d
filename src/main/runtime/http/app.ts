// http/ owns the runtime's HTTP edge: the server and its listening, request screening,
// Host/Origin and CORS rules, the probes (/healthz, /livez, /readyz, /graph), draining on
// shutdown, and the one place an error becomes an answer. It mounts the routers of a2a/ and
// management/; it runs nothing itself.
//
// The runtime's HTTP server: the edge (request-target screening, Host/Origin and CORS rules,
// docs/security.md) in front of the routers the composition root built (A2A, probes,
// management), then the one place any error becomes an answer (edge.ts).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Logger } from 'pino';
import { requestTargetGuard } from '../../http/request-target.ts';
import { edgeServer } from '../../http/server.ts';
import { edgeGuard, runtimeErrorHandler, runtimeNotFound, type EdgePolicy } from './edge.ts';
import { requestContext } from '../observability/request-context.ts';
import type { Drain } from './drain.ts';
import type { RuntimeMetrics } from '../observability/metrics.ts';
import { accessLog } from './access-log.ts';
import { metricsRouter } from './metrics-route.ts';

export class RuntimeStartError extends Error {
  override readonly name = 'RuntimeStartError';
}

export interface HttpServerDeps {
  edge: EdgePolicy;
  /** Counts open requests and, while draining, refuses new ones (drain.ts). */
  drain: Pick<Drain, 'middleware'>;
  /** In order: the JSON-RPC endpoint first, so every message/send passes fewest routes. */
  routers: express.Router[];
  log: Logger;
  /** The access and audit lines and the HTTP metrics (access-log.ts), and GET /metrics behind
   * `operator` (metrics-route.ts). */
  observe?: { metrics: RuntimeMetrics; replica: string; operator: express.RequestHandler };
}

export function runtimeServer({ edge, drain, routers, log, observe }: HttpServerDeps): http.Server {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestTargetGuard());
  app.use(requestContext());
  if (observe) app.use(accessLog({ log, replica: observe.replica, metrics: observe.metrics }));
  app.use(edgeGuard(edge));
  app.use(drain.middleware());
  for (const router of routers) app.use(router);
  if (observe) app.use(metricsRouter(observe.metrics, observe.operator));
  app.use(runtimeNotFound);
  app.use(runtimeErrorHandler(log));
  const server = edgeServer(app, (status, message) => ({ success: false, data: null, error: { code: status === 405 ? 'NOT_FOUND' : 'BAD_REQUEST', message } }));
  return server;
}

/** Listens on host:port; the reasons it cannot, in words an operator can act on. Resolves to
 * the URL the runtime answers on. */
export async function listen(server: http.Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new RuntimeStartError(`port ${port} on ${host} is already in use: stop the other process or pass another --port`));
      else if (err.code === 'EACCES') reject(new RuntimeStartError(`no permission to listen on port ${port}: use a port above 1024`));
      else if (err.code === 'EADDRNOTAVAIL' || err.code === 'ENOTFOUND')
        reject(new RuntimeStartError(`cannot listen on host '${host}': it is not an address of this machine`));
      else reject(err);
    });
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return `http://${shown === '0.0.0.0' ? '127.0.0.1' : shown}:${addr.port}/`;
}
