// GET /metrics: the runtime's Prometheus metrics (observability/metrics.ts; docs/operations.md,
// "Metrics"), on the runtime's own port behind the operator credential, like the management API
// (D-53): a runtime with MANAGEMENT_API_KEYS wants `Authorization: Bearer <management key>`
// (Prometheus: `authorization: {credentials_file: ...}`); a loopback runtime without one serves
// it to local scrapers. It still answers while the runtime drains (http/drain.ts).
import express, { type RequestHandler } from 'express';
import type { RuntimeMetrics } from '../observability/metrics.ts';

export const METRICS_ROUTE = '/metrics';

export function metricsRouter(metrics: Pick<RuntimeMetrics, 'text'>, operator: RequestHandler): express.Router {
  const router = express.Router();
  router.get(METRICS_ROUTE, operator, (_req, res, next) => {
    metrics.text().then(({ contentType, body }) => {
      res.setHeader('content-type', contentType);
      res.setHeader('cache-control', 'no-store');
      res.send(body);
    }, next);
  });
  return router;
}
