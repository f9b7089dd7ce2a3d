// The shutdown sequence of a runtime asked to stop (SIGTERM/SIGINT; docs/deployment.md,
// "Shutdown and health"; D-49):
//   1. drain: not ready at once (/readyz and /healthz 503), new work refused (drain.ts), the
//      server accepts no new connection; open ones keep serving their in-flight requests;
//   2. wait until nothing is in flight (open requests, tasks started here not settled) or
//      SHUTDOWN_GRACE_MS has passed;
//   3. at the end of the grace period, every turn still running ends `failed`
//      (UPSTREAM_UNAVAILABLE, reason runtime_shutdown, retriable): its stream gets that final
//      status and ends, its task is saved final (on PostgreSQL its lease is released), then
//      at most FORCED_END_MS more for those answers to go out;
//   4. the connections left are closed and the parts (MCP, NATS, store) closed.
// Each step is logged. The caller (cli.ts) exits 0 afterwards.
import type http from 'node:http';
import net from 'node:net';
import type { Logger } from 'pino';
import { AgentError } from '../../../sdk/errors.ts';
import type { Drain } from './drain.ts';

/** After the forced end, how long the last answers (final events, saves) may take to go out. */
export const FORCED_END_MS = 2000;

export const SHUTDOWN_MESSAGE = 'The runtime shut down before the turn finished; send the message again.';

/** The failure a turn cut by the shutdown ends with (D-49). */
export function shutdownFailure(): AgentError {
  return new AgentError({ code: 'UPSTREAM_UNAVAILABLE', reason: 'runtime_shutdown', message: SHUTDOWN_MESSAGE, retriable: true });
}

export interface ShutdownDeps {
  server: http.Server;
  drain: Drain;
  executor: { readonly activeCount: number; endAll(failure: AgentError): { taskId: string; contextId: string }[] };
  log: Logger;
  closeParts: () => Promise<void>;
}

export interface ShutdownReport {
  /** Tasks ended `failed` at the end of the grace period. */
  forced: string[];
  durationMs: number;
}

export async function drainAndStop(d: ShutdownDeps, signal: string, graceMs: number): Promise<ShutdownReport> {
  const started = Date.now();
  const { drain, log } = d;
  drain.begin(signal);
  // No new connections. Open ones stay, idle keep-alive ones too: a request on them gets the
  // probes' 503 or the refusal of new work (drain.ts) with `Connection: close`, not a reset.
  // (http.Server's own close() would also cut the idle ones.)
  net.Server.prototype.close.call(d.server);
  const running = d.executor.activeCount;
  log.info(
    { signal, grace_ms: graceMs, tasks_running: running, requests_open: drain.openRequests },
    `${signal}: draining: not ready, refusing new requests; ${running} task(s) running, ${drain.openRequests} request(s) open; waiting up to ${graceMs} ms`,
  );
  let forced: string[] = [];
  if (await drain.whenIdle(graceMs)) {
    log.info({ duration_ms: Date.now() - started }, 'drain: all in-flight work finished');
  } else {
    const ended = d.executor.endAll(shutdownFailure());
    forced = ended.map((t) => t.taskId);
    for (const t of ended) {
      log.warn(
        { task_id: t.taskId, context_id: t.contextId, errorCode: 'UPSTREAM_UNAVAILABLE', errorReason: 'runtime_shutdown' },
        `task ended failed: ${SHUTDOWN_MESSAGE}`,
      );
    }
    log.warn({ grace_ms: graceMs, forced: forced.length }, `drain: grace period over; ${forced.length} task(s) ended failed (runtime_shutdown)`);
    if (!(await drain.whenIdle(FORCED_END_MS))) {
      log.warn(
        { requests_open: drain.openRequests },
        `drain: ${drain.openRequests} request(s) still open ${FORCED_END_MS} ms after the forced end; closing them`,
      );
    }
  }
  d.server.closeAllConnections();
  await d.closeParts();
  const durationMs = Date.now() - started;
  log.info({ duration_ms: durationMs, forced: forced.length }, 'runtime stopped');
  return { forced, durationMs };
}

/** A running runtime's two ways to stop (start.ts, RunningRuntime): `close` at once (open
 * connections cut), `drain` gracefully (the sequence above); whichever comes first wins. */
export function stopControls(stop: ShutdownDeps): { close(): Promise<void>; drain(signal: string, graceMs: number): Promise<ShutdownReport> } {
  let stopping: Promise<unknown> | null = null;
  const { server, closeParts } = stop;
  return {
    async close() {
      if (stopping) return void (await stopping);
      server.closeAllConnections();
      stopping = new Promise<void>((resolve) => server.close(() => resolve())).then(closeParts);
      await stopping;
    },
    async drain(signal, graceMs) {
      if (stopping) throw new Error('the runtime is already stopping');
      const report = drainAndStop(stop, signal, graceMs);
      stopping = report;
      return report;
    },
  };
}
