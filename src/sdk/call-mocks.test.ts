import { describe, expect, it } from 'vitest';
import { toAgentError } from '../main/runtime/execution/errors.ts';
import { MockInputSchema } from '../shared/mocks.ts';
import { mockAnswer, mockFailure, urlMatches, type CallMock } from './call-mocks.ts';

const key = (node: string) => ({ node, branch: null, index: 0, hash: 'h' });
const fetchMock = (url: string, extra: Partial<CallMock> = {}): CallMock => ({
  mock_id: 'mock_1',
  target: { kind: 'fetch', method: '*', url },
  answer: { response: { status: 200, headers: {}, body: { ok: true } } },
  ...extra,
});

describe('tool mocks: matching', () => {
  it('matches the whole URL, * as any run of characters, other characters literally', () => {
    expect(urlMatches('https://x.test/a?q=*', 'https://x.test/a?q=1')).toBe(true);
    expect(urlMatches('https://x.test/a', 'https://x.test/a/b')).toBe(false);
    expect(urlMatches('https://x.test/a.b', 'https://x.test/aXb')).toBe(false);
    expect(urlMatches('*', 'http://anything')).toBe(true);
  });

  it('answers the first mock whose kind, method, node and pattern match; never a model call', () => {
    const mocks: CallMock[] = [
      fetchMock('https://x.test/*', { mock_id: 'post', target: { kind: 'fetch', method: 'POST', url: 'https://x.test/*' } }),
      fetchMock('https://x.test/*', { mock_id: 'in-b', node: 'b' }),
      fetchMock('https://x.test/*', { mock_id: 'any' }),
    ];
    const get = { method: 'GET', url: 'https://x.test/y', body: null };
    expect(mockAnswer(mocks, 'fetch', key('a'), get)?.mock_id).toBe('any');
    expect(mockAnswer(mocks, 'fetch', key('b'), get)?.mock_id).toBe('in-b');
    expect(mockAnswer(mocks, 'fetch', key('a'), { ...get, method: 'POST' })?.mock_id).toBe('post');
    expect(mockAnswer(mocks, 'agent', key('a'), get)).toBeNull();
    expect(mockAnswer(mocks, 'model', key('a'), get)).toBeNull();
    const mcp: CallMock = { mock_id: 'm', target: { kind: 'mcp', tool: 'search' }, answer: { error: { kind: 'tool_error', message: 'no index' } } };
    expect(mockAnswer([mcp], 'mcp', key('a'), { server: 'kb', tool: 'search', args: {} })).toMatchObject({ mock_error: 'tool_error', error: 'no index' });
    expect(mockAnswer([mcp], 'mcp', key('a'), { server: 'kb', tool: 'other', args: {} })).toBeNull();
  });

  it('throws failures the runtime maps as it maps the real ones (spec 7.2)', () => {
    const failure = (kind: 'timeout' | 'connection_refused' | 'tool_error') =>
      mockFailure(
        mockAnswer([{ mock_id: 'x', target: { kind: 'fetch', method: '*', url: '*' }, answer: { error: { kind } } }], 'fetch', key('a'), { url: 'http://h' })!,
      );
    expect(toAgentError(failure('timeout')).code).toBe('UPSTREAM_TIMEOUT');
    expect(failure('timeout').name).toBe('TimeoutError');
    expect(toAgentError(failure('connection_refused')).code).toBe('UPSTREAM_UNAVAILABLE');
    expect(toAgentError(failure('tool_error'), { node: 'a' })).toMatchObject({ code: 'INTERNAL_ERROR', reason: 'unhandled_exception' });
  });

  it('validates definitions: URL scheme, method, error kind, status and unknown keys', () => {
    const ok = MockInputSchema.parse({ target: { kind: 'fetch', method: 'get', url: 'https://x.test/*' }, answer: { response: {} } });
    expect(ok.target).toEqual({ kind: 'fetch', method: 'GET', url: 'https://x.test/*' });
    expect(ok.answer).toEqual({ response: { status: 200, headers: {} } });
    for (const bad of [
      { target: { kind: 'fetch', url: 'file:///etc/passwd' }, answer: { response: {} } },
      { target: { kind: 'fetch', method: 'GE T', url: '*' }, answer: { response: {} } },
      { target: { kind: 'fetch', url: '*' }, answer: { error: { kind: 'boom' } } },
      { target: { kind: 'fetch', url: '*' }, answer: { response: { status: 700 } } },
      { target: { kind: 'fetch', url: '*', extra: 1 }, answer: { response: {} } },
      { target: { kind: 'mcp', tool: '' }, answer: { response: {} } },
    ])
      expect(MockInputSchema.safeParse(bad).success).toBe(false);
  });
});
