// A thin fetch wrapper for the Playground API (spec 4.3) and the studio's unversioned paths.
// Same origin: the studio serves the renderer, so the CSP can keep connect-src 'self'. Every
// reply is parsed with its shared schema (src/shared): unknown keys are dropped, as the spec
// asks of clients (spec 2.6, 9.6), and a reply of the wrong shape is an error, not a cast.
import type { z } from 'zod';
import { PLAYGROUND_PREFIX, PlaygroundErrorBodySchema } from '../../../shared/playground.ts';

export const API_BASE = PLAYGROUND_PREFIX;

/** An error answer of the Playground API, with the `detail` body kept (spec 7.3). */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly detail: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** spec 4.3 rule 2: the project already has an active run. */
  get activeRunId(): string | null {
    return this.code === 'active_run_conflict' && typeof this.detail.active_run_id === 'string' ? this.detail.active_run_id : null;
  }
}

/** A Playground path (`/sessions`), or one of the studio's unversioned paths (`/api/project`). */
export function apiUrl(path: string): string {
  if (path.startsWith('/api/')) return path;
  return `${API_BASE}${path}`;
}

/** An error answer as an ApiError, its `detail` body kept. */
export async function toApiError(res: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await res.json();
  } catch {
    // not JSON: keep the status line
  }
  const parsed = PlaygroundErrorBodySchema.safeParse(body);
  if (parsed.success) {
    const { detail } = parsed.data;
    return new ApiError(res.status, detail.error, detail.message ?? detail.error, detail);
  }
  return new ApiError(res.status, `http_${res.status}`, `${res.status} ${res.statusText}`.trim());
}

/** A 2xx body read with its schema; a body of another shape is an ApiError `unexpected_reply`. */
export function readReply<S extends z.ZodType>(path: string, status: number, reply: S, body: unknown): z.output<S> {
  const parsed = reply.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` at ${issue.path.join('.')}` : '';
  throw new ApiError(status, 'unexpected_reply', `The studio answered ${path} with a body this app does not read${where}: ${issue?.message ?? 'invalid'}`);
}

export interface ApiInit {
  method?: string;
  body?: unknown;
  signal?: AbortSignal;
}

/** Calls `path` and answers its reply parsed with `reply` (a 204's empty body is undefined). */
export async function api<S extends z.ZodType>(path: string, reply: S, init: ApiInit = {}): Promise<z.output<S>> {
  let res: Response;
  try {
    res = await fetch(apiUrl(path), {
      method: init.method ?? 'GET',
      headers: init.body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    });
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'network_error', 'The studio did not answer. Is `agent-studio serve` still running?');
  }
  if (!res.ok) throw await toApiError(res);
  const text = res.status === 204 ? '' : await res.text();
  return readReply(path, res.status, reply, text ? JSON.parse(text) : undefined);
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
