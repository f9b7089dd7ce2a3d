// A thin fetch wrapper for the Playground API (spec 4.3). Same origin: the studio serves
// the renderer, so the CSP can keep connect-src 'self'.
import { PLAYGROUND_PREFIX, type PlaygroundErrorBody } from '../../../shared/playground.ts';

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
    return this.code === 'active_run_conflict' && typeof this.detail.active_run_id === 'string'
      ? this.detail.active_run_id
      : null;
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
  const detail = (body as PlaygroundErrorBody | null)?.detail;
  if (detail && typeof detail === 'object') {
    return new ApiError(res.status, String(detail.error ?? `http_${res.status}`), String(detail.message ?? detail.error ?? res.statusText), detail);
  }
  return new ApiError(res.status, `http_${res.status}`, `${res.status} ${res.statusText}`.trim());
}

export async function api<T>(path: string, init: { method?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
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
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return String(err);
}
