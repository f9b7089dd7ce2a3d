// The HTTP server both the studio and the runtime listen with: the request line screened
// before Express routes it, keep-alive longer than common load balancers' idle timeout, and
// requests Node's parser refuses answered in the surface's own error shape (docs/security.md).
import http from 'node:http';
import { answerClientErrors, type RefusalBody } from './client-errors.ts';
import { screenRequestTarget } from './request-target.ts';

export function edgeServer(app: http.RequestListener, bodyFor: RefusalBody): http.Server {
  const server = http.createServer((req, res) => {
    screenRequestTarget(req);
    app(req, res);
  });
  server.keepAliveTimeout = 65_000;
  answerClientErrors(server, bodyFor);
  return server;
}
