// The official A2A client (@a2a-js/sdk) pointed at the supervised runtime, for tasks/cancel and
// the breakpoint controls (a run's own message/stream is a2a-stream.ts, D-117). The card is
// built locally from the runtime's base URL: the runtime's own card may advertise a
// PUBLIC_AGENT_URL that is not the loopback address the studio talks to.
import type { AgentCard, Part } from '@a2a-js/sdk';
import { A2AClient } from '@a2a-js/sdk/client';

/** `headers`: the studio's control token (RUNTIME_CONTROL_TOKEN), which the runtime also takes
 * as a caller credential when the project configures caller authentication (docs/security.md),
 * or the connection profile's header instead (docs/studio-api.md, "Connection profile").
 * `onStatus` hears the HTTP status of every answer (a 401 is a refused credential). */
export function runtimeClient(baseUrl: string, signal?: AbortSignal, headers: Record<string, string> = {}, onStatus?: (status: number) => void): A2AClient {
  const card: AgentCard = {
    name: 'agent-runtime',
    description: 'the project runtime supervised by the studio',
    url: baseUrl,
    version: '0',
    protocolVersion: '0.3.0',
    capabilities: { streaming: true },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };
  // The client has no per-call signal for streams; a fetch wrapper gives every request
  // of this client the run's signal, so aborting the run closes its A2A stream.
  const fetchImpl: typeof fetch = (input, init) => {
    const signals = [init?.signal, signal].filter((s): s is AbortSignal => !!s);
    const merged = { ...(init?.headers as Record<string, string> | undefined), ...headers };
    const answer = fetch(input, { ...init, headers: merged, signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0] });
    return onStatus ? answer.then((res) => (onStatus(res.status), res)) : answer;
  };
  return new A2AClient(card, { fetchImpl });
}

/** A connection that never reached the runtime (nothing listens, or it went away). */
export function isConnectionError(err: unknown): boolean {
  const codes = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH']);
  for (let e: any = err, depth = 0; e && depth < 4; e = e.cause, depth += 1) {
    if (typeof e.code === 'string' && codes.has(e.code)) return true;
    if (e instanceof TypeError && /fetch failed/i.test(e.message)) return true;
  }
  return false;
}

/** The A2A error DataPart of a failed task (spec 7.2): errorCode, errorReason, errorMessage, retriable. */
export function errorBodyOf(parts: readonly Part[] | undefined): Record<string, unknown> | null {
  for (const p of parts ?? []) {
    if (p.kind === 'data' && typeof (p.data as Record<string, unknown>).errorCode === 'string') return p.data as Record<string, unknown>;
  }
  return null;
}
