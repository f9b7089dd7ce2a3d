// Maps whatever an invocation throws to the A2A failure of spec 7.2. Application errors
// (AgentError) pass through; upstream HTTP statuses, timeouts, connection failures and the
// graph recursion limit map to standard codes (docs/decisions.md D-3, D-4).
import { AgentError } from '../../../sdk/errors.ts';
import { ThreadOwnershipError } from '../store/types.ts';
import { StoreUnavailableError } from '../store/unavailable.ts';

interface ErrorLike {
  name?: string;
  message?: string;
  status?: number;
  code?: string;
  lc_error_code?: string;
  cause?: unknown;
  response?: { status?: number };
}

function chain(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  let cur: unknown = err;
  for (let i = 0; i < 6 && cur && typeof cur === 'object'; i++) {
    out.push(cur as ErrorLike);
    cur = (cur as ErrorLike).cause;
  }
  return out;
}

const TIMEOUT_NAMES = new Set(['TimeoutError', 'APIConnectionTimeoutError', 'ConnectTimeoutError', 'HeadersTimeoutError', 'BodyTimeoutError']);
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'ETIMEDOUT',
  'EHOSTUNREACH',
]);

/** Where a failure happened, when known (node-failures.ts). */
export interface FailureSite {
  node?: string;
  source?: { file: string; line: number; column: number };
}

/** A turn whose store went away (store/guard.ts, D-50): a checkpoint, the thread's memory or
 * its task could not be read or written. The message names no address. */
export function storeUnavailableFailure(): AgentError {
  return new AgentError({
    code: 'UPSTREAM_UNAVAILABLE',
    reason: 'store_unavailable',
    message: "The runtime's store (its database) could not be reached or written, so this turn was not kept; send the message again shortly.",
    retriable: true,
  });
}

export function toAgentError(err: unknown, site: FailureSite = {}): AgentError {
  if (err instanceof AgentError) return err;
  const links = chain(err);
  // Only the store's edge makes this error, so a model's connection failure is never taken for it.
  if (links.some((e) => e instanceof StoreUnavailableError)) return storeUnavailableFailure();
  const message = (links[0]?.message ?? String(err)).slice(0, 500);

  if (links.some((e) => e.name === 'AgentError' && typeof (e as AgentError).code === 'string')) {
    return links.find((e) => e.name === 'AgentError') as AgentError;
  }
  if (err instanceof ThreadOwnershipError) {
    return new AgentError({
      code: 'INVALID_INPUT',
      reason: 'thread_owned_by_other_agent',
      message: 'This conversation belongs to another agent; start a new contextId.',
    });
  }
  if (links.some((e) => e.name === 'GraphRecursionError' || e.lc_error_code === 'GRAPH_RECURSION_LIMIT')) {
    return new AgentError({
      code: 'INTERNAL_ERROR',
      reason: 'graph_recursion_limit',
      message: 'The agent exceeded its step limit without finishing.',
      retriable: false,
    });
  }
  for (const e of links) {
    const status = e.status ?? e.response?.status;
    if (status === 401 || status === 403 || e.lc_error_code === 'MODEL_AUTHENTICATION') {
      return new AgentError({
        code: 'AUTH_REQUIRED',
        reason: status === 403 ? 'upstream_forbidden' : 'upstream_unauthorized',
        message: `The model service refused our credentials (HTTP ${status ?? 401}).`,
      });
    }
    if (status === 429 || e.lc_error_code === 'MODEL_RATE_LIMIT') {
      return new AgentError({ code: 'RATE_LIMITED', reason: 'upstream_rate_limited', message: 'The model service is rate limiting us; try again shortly.' });
    }
    if (status === 404 && /model/i.test(e.message ?? '')) {
      return new AgentError({ code: 'NOT_FOUND', reason: 'model_not_found', message: `The model service does not know the configured model: ${message}` });
    }
    if (typeof status === 'number' && status >= 500) {
      return new AgentError({ code: 'UPSTREAM_UNAVAILABLE', reason: 'upstream_server_error', message: `The model service failed (HTTP ${status}).` });
    }
  }
  if (links.some((e) => e.name === 'OutboundQueueTimeoutError')) {
    return new AgentError({
      code: 'UPSTREAM_TIMEOUT',
      reason: 'outbound_pool_busy',
      message: `Every outbound connection stayed busy longer than the call could wait: ${message}`,
    });
  }
  // Google's Gemini client aborts a request past its timeout ("Request aborted when fetching ...");
  // a run cancelled by its caller is reported as cancelled before this mapping is asked.
  if (links.some((e) => TIMEOUT_NAMES.has(e.name ?? '') || /timed? ?out|Request aborted when fetching/i.test(e.message ?? ''))) {
    return new AgentError({ code: 'UPSTREAM_TIMEOUT', reason: 'upstream_timeout', message: 'The model service did not answer in time.' });
  }
  if (
    links.some(
      (e) =>
        e.name === 'APIConnectionError' ||
        CONNECTION_CODES.has(e.code ?? '') ||
        /connection error|terminated|socket hang up|fetch failed|other side closed|premature close|ECONNRESET/i.test(e.message ?? ''),
    )
  ) {
    return new AgentError({ code: 'UPSTREAM_UNAVAILABLE', reason: 'upstream_connection_failed', message: 'The connection to the model service failed.' });
  }
  // Words a user reads: which node, what went wrong, where; the stack stays in the trace and log.
  const where = site.source ? ` (${site.source.file}:${site.source.line}:${site.source.column})` : '';
  const what = site.node ? `Node '${site.node}' failed` : 'The agent failed unexpectedly';
  return new AgentError({ code: 'INTERNAL_ERROR', reason: 'unhandled_exception', message: `${what}: ${message}${where}` });
}
