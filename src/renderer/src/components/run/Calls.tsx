// The calls a node made (docs/playground-api.md, "Recorded calls"): each model call with its
// prompt and answer rendered as messages (tool calls as calls), its tokens and the raw
// request; each ctx.fetch, callAgent and MCP call with its request and response. Also the
// mark of a replayed run and the button that starts one (D-91).
import type { RunDetail } from '../../../../shared/playground.ts';
import { isBodyRef } from '../../../../shared/recordings.ts';
import type { TraceRunEvent } from '../../hooks/useRunStream.ts';
import { formatDuration, shortId } from '../../lib/format.ts';
import { useStartRerun } from './useStartRerun.ts';
import { DataTree } from './DataTree.tsx';
import { useState } from 'react';
import { CallPlayground } from './CallPlayground.tsx';
import { MockThisCall } from './MockCall.tsx';

type Fields = Record<string, unknown>;

export const isCallEvent = (name: string): boolean => name === 'model.call' || name === 'outbound.call';

/** The recorded calls of a span: a node's (every branch's too), or one branch's. */
export function callsOf(traces: TraceRunEvent[], span: { id: string; kind: string }): Fields[] {
  return traces
    .filter((e) => isCallEvent(e.name))
    .map((e): Fields => ({ name: e.name, ...(e.data as Fields) }))
    .filter((d) => (span.kind === 'branch' ? d.branch_span_id === span.id : d.parent_span_id === span.id));
}

function Blob({ value }: { value: unknown }) {
  if (!isBodyRef(value)) return null;
  return (
    <p className="muted small">
      {value.bytes.toLocaleString()} bytes, kept in the blob store ({shortId(value.blob)}): <code>{value.preview}…</code>
    </p>
  );
}

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => (typeof c?.text === 'string' ? c.text : JSON.stringify(c))).join('');
  return JSON.stringify(content);
}

function Messages({ messages, testId }: { messages: unknown; testId: string }) {
  if (isBodyRef(messages)) return <Blob value={messages} />;
  if (!Array.isArray(messages)) return null;
  return (
    <ol className="call__messages" data-testid={testId}>
      {messages.map((m: { role?: string; content?: unknown; tool_calls?: { name: string; args: unknown }[]; tool_call_id?: string }, i) => (
        <li key={i} className={`call__message call__message--${m.role ?? 'other'}`} data-role={m.role}>
          <strong>{m.role}</strong>
          {m.tool_call_id ? <span className="muted small"> (answers {m.tool_call_id})</span> : null}
          {text(m.content) ? <pre className="call__text">{text(m.content)}</pre> : null}
          {m.tool_calls?.map((c, j) => (
            <code key={j} className="call__toolcall" data-testid="call-tool-call">
              {c.name}({JSON.stringify(c.args)})
            </code>
          ))}
        </li>
      ))}
    </ol>
  );
}

function tokens(u: unknown): string {
  const x = u as { input_tokens?: number; output_tokens?: number; cache_read_tokens?: number } | null;
  if (!x) return '';
  return ` · ${x.input_tokens ?? 0} in${x.cache_read_tokens ? ` (${x.cache_read_tokens} cached)` : ''} / ${x.output_tokens ?? 0} out`;
}

function where(c: Fields): string {
  const k = c.key as { branch?: string | null; index?: number } | undefined;
  return k ? `${k.branch !== null && k.branch !== undefined ? `[${k.branch}] ` : ''}#${k.index}` : '';
}

function ModelCall({ c }: { c: Fields }) {
  const [playground, setPlayground] = useState(false);
  return (
    <details className="call" data-testid="model-call" data-status={String(c.status)}>
      <summary>
        <strong>model</strong> {where(c)} · {String(c.response_model ?? c.request_model ?? c.provider)} · {formatDuration(c.duration_ms as number)}
        {tokens(c.usage)}
        {c.replayed ? <span className="badge"> replayed</span> : null}
        {c.error ? <span className="waterfall__status--failed"> · {String(c.error)}</span> : null}
      </summary>
      {Array.isArray(c.input_messages) ? (
        <button type="button" className="btn btn--small" data-testid="open-playground" onClick={() => setPlayground(true)}>
          Open in playground
        </button>
      ) : null}
      {playground ? <CallPlayground call={c} onClose={() => setPlayground(false)} /> : null}
      <h5 className="subhead">Prompt</h5>
      <Messages messages={c.input_messages} testId="call-prompt" />
      <h5 className="subhead">Response</h5>
      <Messages messages={c.output_messages} testId="call-response" />
      <details>
        <summary>Raw request</summary>
        {c.raw_request ? <DataTree value={c.raw_request as Fields} openDepth={1} /> : <p className="muted small">Not sent through the runtime's pool.</p>}
        {c.params ? <DataTree value={c.params as Fields} openDepth={1} /> : null}
      </details>
    </details>
  );
}

function OutboundCall({ c }: { c: Fields }) {
  const body = (v: unknown) =>
    isBodyRef(v) ? (
      <Blob value={v} />
    ) : typeof v === 'object' && v !== null ? (
      <DataTree value={v as Fields} openDepth={1} />
    ) : (
      <pre className="call__text">{String(v ?? '')}</pre>
    );
  return (
    <details className="call" data-testid="outbound-call">
      <summary>
        <strong>{String(c.kind)}</strong> {where(c)} · {String(c.method)} <code>{String(c.url)}</code> → {c.status === null ? 'no answer' : String(c.status)} ·{' '}
        {formatDuration(c.duration_ms as number)}
        {c.replayed ? <span className="badge"> replayed</span> : null}
        {c.mocked ? (
          <span className="badge" data-testid="call-mocked" title={`Answered by the mock ${String(c.mock_id)}, not the network`}>
            {' '}
            mocked
          </span>
        ) : null}
        {c.error ? <span className="waterfall__status--failed"> · {String(c.error)}</span> : null}
      </summary>
      <MockThisCall c={c} />
      <h5 className="subhead">Request</h5>
      <DataTree value={(c.request_headers ?? {}) as Fields} openDepth={0} />
      {c.request_body !== undefined ? body(c.request_body) : null}
      <h5 className="subhead">Response</h5>
      {c.response_headers ? <DataTree value={c.response_headers as Fields} openDepth={0} /> : null}
      {c.response_body !== undefined ? body(c.response_body) : null}
    </details>
  );
}

export function NodeCalls({ calls }: { calls: Fields[] }) {
  if (!calls.length) return null;
  return (
    <>
      <h4 className="subhead">Calls ({calls.length})</h4>
      <div className="calls" data-testid="node-calls">
        {calls.map((c, i) => (c.name === 'model.call' ? <ModelCall key={i} c={c} /> : <OutboundCall key={i} c={c} />))}
      </div>
    </>
  );
}

export function Replayed({ run }: { run: RunDetail }) {
  if (!run.replay) return null;
  return (
    <span className="lineage" data-testid="run-replayed" title="Model and tool calls were answered from the recorded run, not the network">
      Replayed from <code>{shortId(run.replay.from_run_id)}</code> ({run.replay.on_mismatch === 'error' ? 'strict' : 'unmatched calls live'})
    </span>
  );
}

/** Reruns the input with its calls answered from this run's recording (strict). */
export function ReplayButton({ run }: { run: RunDetail }) {
  const { rerun, start } = useStartRerun();
  return (
    <button
      type="button"
      className="btn"
      disabled={rerun.isPending}
      data-testid="replay-run"
      title="Rerun with the model and tool calls answered from this run's recording: no network, no API key; a call that no longer matches fails naming it"
      onClick={() => void start(run, { runId: run.run_id, replay: { from_run_id: run.run_id, on_mismatch: 'error' } })}
    >
      {rerun.isPending ? 'Starting…' : 'Replay'}
    </button>
  );
}
