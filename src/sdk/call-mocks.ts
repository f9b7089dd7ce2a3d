// Tool mocks in the runtime (docs/playground-api.md, "Tool mocks"; D-102): a call of a
// session's run that matches a mock is answered by it, through the same path a replay answers
// by (call-record.ts, outbound/recording.ts). The shapes of src/shared/mocks.ts are restated:
// the SDK ships without src/shared.
// (The call's key and kind as call-record.ts has them; not imported, which would be a cycle.)
type CallKind = 'model' | 'fetch' | 'mcp' | 'agent';
interface CallKey {
  node: string;
  branch: string | null;
  index: number;
  hash: string;
}

export interface CallMock {
  mock_id: string;
  target: { kind: 'fetch'; method: string; url: string } | { kind: 'mcp'; server?: string; tool: string } | { kind: 'agent'; url: string };
  node?: string;
  answer: { response: { status: number; headers: Record<string, string>; body?: unknown } } | { error: { kind: MockErrorKind; message?: string } };
}
export type MockErrorKind = 'timeout' | 'connection_refused' | 'tool_error';

/** A replay answer that came from a mock: `mock_id` names it, `mock_error` the failure to throw. */
export interface MockedAnswer {
  kind: CallKind;
  key: CallKey;
  mock_id: string;
  mock_error?: MockErrorKind;
  [field: string]: unknown;
}

const patterns = new Map<string, RegExp>();

/** `*` matches any run of characters; everything else is literal; the whole URL must match. */
export function urlMatches(pattern: string, url: string): boolean {
  let re = patterns.get(pattern);
  if (!re) {
    re = new RegExp(
      `^${pattern
        .split('*')
        .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
        .join('.*')}$`,
      'i',
    );
    if (patterns.size > 1000) patterns.clear();
    patterns.set(pattern, re);
  }
  return re.test(url);
}

function matches(m: CallMock, kind: CallKind, key: CallKey, request: Record<string, unknown>): boolean {
  if (m.node !== undefined && m.node !== key.node) return false;
  const t = m.target;
  if (t.kind !== kind) return false;
  if (t.kind === 'mcp') return request.tool === t.tool && (t.server === undefined || request.server === t.server);
  if (t.kind === 'fetch' && t.method !== '*' && t.method !== String(request.method ?? '').toUpperCase()) return false;
  return urlMatches(t.url, String(request.url ?? ''));
}

/** The first mock that matches this call, as an answer; null when none does. */
export function mockAnswer(mocks: readonly CallMock[] | undefined, kind: CallKind, key: CallKey, request: unknown): MockedAnswer | null {
  if (!mocks?.length || kind === 'model') return null;
  const req = (request ?? {}) as Record<string, unknown>;
  const m = mocks.find((x) => matches(x, kind, key, req));
  if (!m) return null;
  if ('error' in m.answer) {
    const { kind: failure, message } = m.answer.error;
    return { kind, key, mock_id: m.mock_id, mock_error: failure, status: null, error: message ?? defaultMessage(failure) };
  }
  const r = m.answer.response;
  return { kind, key, mock_id: m.mock_id, status: r.status, response_headers: r.headers, response_body: r.body ?? null };
}

function defaultMessage(kind: MockErrorKind): string {
  if (kind === 'timeout') return 'The call timed out (mocked).';
  if (kind === 'connection_refused') return 'connect ECONNREFUSED (mocked)';
  return 'The tool failed (mocked).';
}

/** The error a mocked failure throws, shaped as the real failure is so the runtime maps it to
 * the same code (src/main/runtime/execution/errors.ts, src/sdk/agent-call.ts). */
export function mockFailure(a: MockedAnswer): Error {
  const message = typeof a.error === 'string' ? a.error : defaultMessage(a.mock_error ?? 'tool_error');
  if (a.mock_error === 'timeout') {
    const e = new Error(message);
    e.name = 'TimeoutError';
    return e;
  }
  if (a.mock_error === 'connection_refused') {
    const cause = Object.assign(new Error(message), { code: 'ECONNREFUSED' });
    return new TypeError('fetch failed', { cause });
  }
  return new Error(message);
}

export function isMockedAnswer(a: object | null): a is MockedAnswer {
  return a !== null && typeof (a as MockedAnswer).mock_id === 'string';
}
