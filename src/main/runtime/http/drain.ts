// A runtime that is draining (docs/deployment.md, "Shutdown and health"): from the first
// SIGTERM/SIGINT it is not ready (/readyz and /healthz answer 503), it refuses new work in the
// shape of each surface, and it counts the requests still open so the shutdown sequence
// (shutdown.ts) knows when in-flight work is done.
//   - POST /: message/send and message/stream (which would start a turn) get the JSON-RPC
//     error SHUTTING_DOWN_RPC with HTTP 503 (a2a/request-meta.ts asks `rpcRefusal`); the
//     methods about existing tasks (tasks/get, tasks/cancel, tasks/resubscribe ...) still
//     answer, so a client can follow or cancel its task until it ends.
//   - everything else but the probes and /metrics: the management envelope (spec 2.1) with the code
//     SHUTTING_DOWN, HTTP 503 (docs/management-api.md).
// Every answer given while draining says `Connection: close`, so keep-alive clients open
// their next connection elsewhere (the server itself accepts none any more).
import type { RequestHandler } from 'express';
import { ManagementError } from '../management/envelope.ts';
import { A2A_REST_BASE, HEALTH_ROUTE, LIVENESS_ROUTE, READINESS_ROUTE } from '../../../shared/runtime-contract.ts';
import { METRICS_ROUTE } from './metrics-route.ts';

/** JSON-RPC error code of a request refused because the runtime is shutting down. Outside the
 * codes of A2A 0.3 (-32001..-32007) and JSON-RPC (-32600..-32603, -32700), in the range
 * JSON-RPC leaves to servers; -32010 is authentication's (docs/security.md). */
export const SHUTTING_DOWN_RPC = -32020;

const SHUTTING_DOWN_MESSAGE = 'The runtime is shutting down and starts no new work: send the request again (another replica will answer).';

/** The JSON-RPC methods that start a turn: refused while draining. */
const NEW_WORK = new Set(['message/send', 'message/stream']);

/** Answered while draining, and not counted as in-flight work: the probes and the metrics. */
const PROBES = new Set<string>([HEALTH_ROUTE, LIVENESS_ROUTE, READINESS_ROUTE, METRICS_ROUTE]);

const isProbe = (method: string, path: string) => (method === 'GET' || method === 'HEAD') && PROBES.has(path);

export class Drain {
  private state: { since: number; signal: string } | null = null;
  private open = 0;
  private readonly waiters = new Set<() => void>();

  /** `pending`: other in-flight work (tasks started here and not settled, a2a/settling.ts). */
  constructor(private readonly pending: () => number) {}

  get draining(): boolean {
    return this.state !== null;
  }

  /** Why the runtime is not ready, while draining. */
  get reason(): string | null {
    return this.state && `draining: the runtime is shutting down (${this.state.signal}); in-flight work is finishing`;
  }

  /** Requests open now, probes excepted. */
  get openRequests(): number {
    return this.open;
  }

  get idle(): boolean {
    return this.open === 0 && this.pending() === 0;
  }

  begin(signal: string): void {
    this.state ??= { since: Date.now(), signal };
  }

  /** Call when in-flight work may have ended. */
  changed(): void {
    if (!this.idle) return;
    for (const w of [...this.waiters]) w();
  }

  /** Resolves true once nothing is in flight, false after `ms` if something still is. */
  whenIdle(ms: number): Promise<boolean> {
    if (this.idle) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (idle: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(onIdle);
        resolve(idle);
      };
      const onIdle = () => done(true);
      const timer = setTimeout(() => done(this.idle), Math.min(ms, 2 ** 31 - 1)); // setTimeout's longest delay
      this.waiters.add(onIdle);
    });
  }

  /** The refusal of a JSON-RPC method while draining, else null. */
  rpcRefusal(method: string): { code: number; message: string; data: Record<string, unknown> } | null {
    if (!this.draining || !NEW_WORK.has(method)) return null;
    return {
      code: SHUTTING_DOWN_RPC,
      message: `Unavailable: ${SHUTTING_DOWN_MESSAGE}`,
      data: { errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'runtime_shutting_down', retriable: true },
    };
  }

  /** Counts open requests; while draining, refuses all but the probes and POST / (refused
   * per method, above). */
  middleware(): RequestHandler {
    return (req, res, next) => {
      if (isProbe(req.method, req.path)) return next();
      this.open += 1;
      res.once('close', () => {
        this.open -= 1;
        this.changed();
      });
      if (!this.draining) return next();
      res.setHeader('connection', 'close');
      // The A2A endpoints refuse new work per method and still answer about existing tasks.
      if ((req.path === '/' && req.method === 'POST') || req.path.startsWith(`${A2A_REST_BASE}/`)) return next();
      next(new ManagementError('SHUTTING_DOWN', SHUTTING_DOWN_MESSAGE));
    };
  }
}
