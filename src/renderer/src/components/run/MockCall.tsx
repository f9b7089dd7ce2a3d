// "Mock this call" on a recorded ctx.fetch, callAgent or MCP call (docs/playground-api.md,
// "Tool mocks"; D-102): a form prefilled with the call's target and recorded response, which
// the author edits or swaps for an error, saved as a mock of the session's later runs.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { MOCK_ERROR_KINDS, MockListReplySchema, MockSchema, type MockErrorKind, type MockInput } from '../../../../shared/mocks.ts';
import { isBodyRef } from '../../../../shared/recordings.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useUi } from '../../state/ui.ts';

type Fields = Record<string, unknown>;

const ERROR_LABELS: Record<MockErrorKind, string> = {
  timeout: 'Timeout (UPSTREAM_TIMEOUT)',
  connection_refused: 'Connection refused (UPSTREAM_UNAVAILABLE)',
  tool_error: 'The tool answers an error',
};

const mocksKey = (sessionId: string | null) => ['session-mocks', sessionId];

/** The session's mocks, to show how many apply to its next runs. */
export function useSessionMocks(sessionId: string | null) {
  return useQuery({
    queryKey: mocksKey(sessionId),
    enabled: !!sessionId,
    queryFn: () => api(`/sessions/${encodeURIComponent(sessionId!)}/mocks`, MockListReplySchema),
  });
}

/** The mock's target as the recorded call gives it. */
export function targetOf(c: Fields): MockInput['target'] {
  if (c.kind === 'mcp') {
    const req = (c.request_body ?? {}) as { server?: string; tool?: string };
    return { kind: 'mcp', tool: String(req.tool ?? ''), ...(req.server ? { server: String(req.server) } : {}) };
  }
  if (c.kind === 'agent') return { kind: 'agent', url: String(c.url) };
  return { kind: 'fetch', method: String(c.method ?? '*'), url: String(c.url) };
}

function recordedResponse(c: Fields): string {
  const headers = (c.response_headers ?? {}) as Record<string, string>;
  const type = headers['content-type'];
  const body = isBodyRef(c.response_body) ? null : c.response_body;
  return JSON.stringify({ status: typeof c.status === 'number' ? c.status : 200, headers: type ? { 'content-type': type } : {}, body: body ?? null }, null, 2);
}

export function MockThisCall({ c }: { c: Fields }) {
  const sessionId = useUi((s) => s.sessionId);
  const qc = useQueryClient();
  const [open, setOpen] = useState(false);
  const [pattern, setPattern] = useState(String(c.url ?? ''));
  const [onlyNode, setOnlyNode] = useState(false);
  const [failure, setFailure] = useState<MockErrorKind | ''>('');
  const [response, setResponse] = useState(() => recordedResponse(c));
  const save = useMutation({
    mutationFn: (body: MockInput) => api(`/sessions/${encodeURIComponent(sessionId!)}/mocks`, MockSchema, { method: 'POST', body }),
    onSuccess: () => qc.invalidateQueries({ queryKey: mocksKey(sessionId) }),
  });
  const [parseError, setParseError] = useState<string | null>(null);
  if (!sessionId) return null;
  if (!open)
    return (
      <button type="button" className="btn btn--small" data-testid="mock-call" onClick={() => setOpen(true)}>
        Mock this call
      </button>
    );
  const submit = () => {
    setParseError(null);
    const base = targetOf(c);
    const target = base.kind === 'mcp' ? base : { ...base, url: pattern };
    const key = c.key as { node?: string } | undefined;
    let answer: MockInput['answer'];
    if (failure) answer = { error: { kind: failure } };
    else {
      try {
        answer = { response: JSON.parse(response) as { status?: number; headers?: Record<string, string>; body?: unknown } };
      } catch (err) {
        setParseError(`The response is not JSON: ${(err as Error).message}`);
        return;
      }
    }
    save.mutate({ target, answer, ...(onlyNode && key?.node ? { node: key.node } : {}), label: `from ${String(c.method)} ${String(c.url)}`.slice(0, 200) });
  };
  return (
    <form
      className="mock-form"
      data-testid="mock-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {c.kind !== 'mcp' ? (
        <label>
          <span>
            URL (<code>*</code> matches anything)
          </span>
          <input className="input" value={pattern} onChange={(e) => setPattern(e.target.value)} data-testid="mock-url" />
        </label>
      ) : null}
      <label className="mock-form__check">
        <input type="checkbox" checked={onlyNode} onChange={(e) => setOnlyNode(e.target.checked)} /> Only in node{' '}
        <code>{String((c.key as { node?: string } | undefined)?.node ?? '')}</code>
      </label>
      <label>
        Answer with
        <select className="input" value={failure} onChange={(e) => setFailure(e.target.value as MockErrorKind | '')} data-testid="mock-kind">
          <option value="">This response</option>
          {MOCK_ERROR_KINDS.map((k) => (
            <option key={k} value={k}>
              {ERROR_LABELS[k]}
            </option>
          ))}
        </select>
      </label>
      {failure ? null : (
        <textarea className="input mock-form__response" rows={8} value={response} onChange={(e) => setResponse(e.target.value)} data-testid="mock-response" />
      )}
      {parseError || save.error ? <p className="form-error">{parseError ?? errorMessage(save.error)}</p> : null}
      {save.isSuccess ? (
        <p className="muted small" data-testid="mock-saved">
          Saved: the session's next runs get this answer instead of the network.
        </p>
      ) : null}
      <div className="row">
        <button type="submit" className="btn" disabled={save.isPending} data-testid="mock-save">
          {save.isPending ? 'Saving…' : 'Save mock'}
        </button>
        <button type="button" className="btn btn--ghost" onClick={() => setOpen(false)}>
          Close
        </button>
      </div>
    </form>
  );
}
