// The playground for one model call (docs/playground-api.md, "Playground for one call";
// D-100, D-101): a recorded call's messages and parameters, editable; Send asks the project's
// configured model through the runtime, as often as wanted, each answer shown beside the
// recorded one with the compare's text diff. A message whose text comes from a string or
// template literal in the project's source, or holds a prompt file of the manifest (D-105), can
// be written back there ("Apply to source", through the save path's conflict check), and the run re-run from the checkpoint before the
// call's node (the debugger's fork).
import { useEffect, useMemo, useState } from 'react';
import { createTwoFilesPatch, diffLines } from 'diff';
import {
  AppliedSourceSchema,
  ModelCallResultSchema,
  SourceLiteralsReplySchema,
  type ModelCallResult,
  type PromptFileMatch,
  type SourceMatch,
} from '../../../../shared/call-playground.ts';
import type { TextComparison } from '../../../../shared/compare.ts';
import { api, errorMessage } from '../../api/client.ts';
import { useForkRun, useRunCheckpoints } from '../../api/state.ts';
import { useUi } from '../../state/ui.ts';
import { Modal } from '../Modal.tsx';
import { TextDiff } from '../compare/TextDiff.tsx';

type Fields = Record<string, unknown>;
type Message = { role: string; content: unknown; tool_calls?: unknown; tool_call_id?: string; name?: string };

function text(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: string }) => (typeof c?.text === 'string' ? c.text : JSON.stringify(c))).join('');
  return content === undefined || content === null ? '' : JSON.stringify(content);
}

/** The recorded answer's text against a new one's, in the compare's TextDiff shape. */
export function comparison(left: string, right: string): TextComparison {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(left, right)) {
    if (part.added) added += part.count ?? 0;
    if (part.removed) removed += part.count ?? 0;
  }
  const equal = left === right;
  return {
    index: 0,
    status: equal ? 'equal' : 'changed',
    left,
    right,
    unified_diff: equal ? '' : createTwoFilesPatch('recorded', 'sent', `${left}\n`, `${right}\n`),
    lines_added: added,
    lines_removed: removed,
    diff_timed_out: false,
    left_partial: false,
    right_partial: false,
  };
}

const num = (v: string): number | undefined => (v.trim() === '' || !Number.isFinite(Number(v)) ? undefined : Number(v));

/** Why an edit of a message holding a prompt file cannot go to the file: it changes the text
 * the code adds before or after the file's part (D-105). Null when it can. */
export function outsidePromptFile(original: string, edited: string, m: Pick<PromptFileMatch, 'start' | 'end' | 'path'>): string | null {
  const before = original.slice(0, m.start);
  const after = original.slice(m.end);
  if (edited.length >= before.length + after.length && edited.startsWith(before) && edited.endsWith(after)) return null;
  return `The edit changes text outside ${m.path}'s part of the message (the code adds the text before and after it), so it cannot be applied to ${m.path}. Edit only the prompt file's part.`;
}

/** Where an edited message's original text is written in the source, and applying the edit there. */
function ApplyToSource({ original, edited, node }: { original: string; edited: string; node: string }) {
  const [found, setFound] = useState<SourceMatch[] | null>(null);
  const [applied, setApplied] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api('/source-literals', SourceLiteralsReplySchema, { method: 'POST', body: { text: original } })
      .then((r) => live && setFound(r.literals))
      .catch(() => live && setFound([]));
    return () => {
      live = false;
    };
  }, [original]);
  if (!found?.length) return null;
  // A literal holding the whole text first; else the prompt file the text holds.
  const at = found.find((f) => f.kind !== 'prompt_file') ?? found[0]!;
  const others = found.length - 1;
  if (applied) return <ReRun node={node} applied={applied} />;
  const outside = at.kind === 'prompt_file' && edited !== original ? outsidePromptFile(original, edited, at) : null;
  return (
    <div className="playground__apply" data-testid="pg-source">
      <span className="muted small">
        {at.kind === 'prompt_file' ? (
          <>
            Holds <code>{at.path}</code> (the prompt <code>{at.name}</code> of agent.json)
          </>
        ) : (
          <>
            From <code>{`${at.path}:${at.line}`}</code> ({at.kind} literal)
          </>
        )}
        {others > 0 ? `, and ${others} more` : ''}
      </span>
      <button
        type="button"
        className="btn"
        data-testid="pg-apply"
        disabled={edited === original || outside !== null}
        onClick={async () => {
          setError(null);
          try {
            const body =
              at.kind === 'prompt_file'
                ? { kind: 'prompt_file', path: at.path, original, edited, base_sha256: at.sha256 }
                : { path: at.path, line: at.line, original, edited, base_sha256: at.sha256 };
            const r = await api('/source-literals/apply', AppliedSourceSchema, { method: 'POST', body });
            setApplied(at.kind === 'prompt_file' ? r.path : `${r.path}:${at.line}`);
          } catch (err) {
            setError(errorMessage(err));
          }
        }}
      >
        {at.kind === 'prompt_file' ? `Apply to ${at.path}` : 'Apply to source'}
      </button>
      {outside ? (
        <p className="muted small" data-testid="pg-apply-outside">
          {outside}
        </p>
      ) : null}
      {error ? (
        <p className="error small" role="alert" data-testid="pg-apply-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** After an apply: re-run the run from the checkpoint before the call's node. */
function ReRun({ node, applied }: { node: string; applied: string }) {
  const runId = useUi((s) => s.runId);
  const selectRun = useUi((s) => s.selectRun);
  const checkpoints = useRunCheckpoints(runId ?? '', Boolean(runId));
  const fork = useForkRun();
  const before = checkpoints.data?.find((c) => c.checkpoint_ns === '' && c.next.includes(node));
  return (
    <div className="playground__apply" data-testid="pg-applied">
      <span className="small">
        Applied to <code>{applied}</code>.
      </span>
      {runId && before ? (
        <button
          type="button"
          className="btn"
          data-testid="pg-rerun"
          disabled={fork.isPending}
          onClick={async () => {
            const r = await fork.mutateAsync({ runId, checkpointId: before.checkpoint_id }).catch(() => null);
            if (r) selectRun(r.session_id, r.run_id);
          }}
        >
          Re-run from {node}
        </button>
      ) : null}
      {fork.error ? <span className="error small">{errorMessage(fork.error)}</span> : null}
    </div>
  );
}

export function CallPlayground({ call, onClose }: { call: Fields; onClose: () => void }) {
  const recorded = useMemo(() => (Array.isArray(call.input_messages) ? (call.input_messages as Message[]) : []), [call]);
  const params = (call.params ?? {}) as Fields;
  const [messages, setMessages] = useState<Message[]>(recorded);
  const [model, setModel] = useState(String(call.request_model ?? params.model ?? ''));
  const [temperature, setTemperature] = useState(params.temperature === undefined ? '' : String(params.temperature));
  const [maxTokens, setMaxTokens] = useState(params.max_tokens === undefined ? '' : String(params.max_tokens));
  const [results, setResults] = useState<ModelCallResult[]>([]);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const original = text((call.output_messages as Message[] | undefined)?.[0]?.content);
  const node = String((call.key as { node?: string } | undefined)?.node ?? call.node ?? '');

  const send = async () => {
    setSending(true);
    setError(null);
    try {
      const body = {
        messages,
        params: {
          ...(model.trim() ? { model: model.trim() } : {}),
          ...(num(temperature) !== undefined ? { temperature: num(temperature) } : {}),
          ...(num(maxTokens) !== undefined ? { max_tokens: num(maxTokens) } : {}),
          ...(Array.isArray(params.tools) ? { tools: params.tools } : {}),
        },
      };
      const r = await api('/model-calls', ModelCallResultSchema, { method: 'POST', body });
      setResults((prev) => [r, ...prev]);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setSending(false);
    }
  };

  return (
    <Modal open title={`Playground: model call in ${node}`} onClose={onClose} testId="call-playground" wide>
      <div className="playground">
        <ol className="playground__messages">
          {messages.map((m, i) => (
            <li key={i} className="playground__message">
              <label>
                <strong>{m.role}</strong>
                {typeof m.content === 'string' || m.content === undefined ? (
                  <textarea
                    data-testid={`pg-message-${i}`}
                    rows={Math.min(12, Math.max(2, text(m.content).split('\n').length + 1))}
                    value={text(m.content)}
                    onChange={(e) => setMessages(messages.map((x, j) => (j === i ? { ...x, content: e.target.value } : x)))}
                  />
                ) : (
                  <pre className="call__text">{text(m.content)}</pre>
                )}
              </label>
              {typeof recorded[i]?.content === 'string' && recorded[i]!.content ? (
                <ApplyToSource original={recorded[i]!.content as string} edited={text(m.content)} node={node} />
              ) : null}
            </li>
          ))}
        </ol>
        <div className="playground__params">
          <label>
            Model <input data-testid="pg-model" value={model} onChange={(e) => setModel(e.target.value)} />
          </label>
          <label>
            Temperature <input data-testid="pg-temperature" inputMode="decimal" value={temperature} onChange={(e) => setTemperature(e.target.value)} />
          </label>
          <label>
            Max tokens <input data-testid="pg-max-tokens" inputMode="numeric" value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />
          </label>
        </div>
        <div className="actions">
          <button type="button" className="btn btn--primary" data-testid="pg-send" disabled={sending} onClick={() => void send()}>
            {sending ? 'Sending…' : 'Send'}
          </button>
          <button type="button" className="btn" onClick={() => setMessages(recorded)}>
            Reset
          </button>
          <button type="button" className="btn" onClick={onClose}>
            Close
          </button>
        </div>
        {error ? (
          <p className="error" role="alert" data-testid="pg-error">
            {error}
          </p>
        ) : null}
        {results.map((r, i) => (
          <section key={results.length - i} className="playground__result" data-testid="pg-result">
            <h4 className="subhead">
              Answer {results.length - i} · {r.response_model ?? r.provider} · {Math.round(r.duration_ms)} ms
              {r.usage ? ` · ${r.usage.input_tokens} in / ${r.usage.output_tokens} out` : ''}
            </h4>
            {r.error ? (
              <p className="error" data-testid="pg-result-error">
                {r.error}
              </p>
            ) : (
              <div className="playground__sides">
                <div>
                  <h5 className="subhead">Recorded</h5>
                  <pre className="call__text" data-testid="pg-original">
                    {original}
                  </pre>
                </div>
                <div>
                  <h5 className="subhead">Sent now</h5>
                  <pre className="call__text" data-testid="pg-answer">
                    {text(r.output_messages[0]?.content)}
                  </pre>
                </div>
              </div>
            )}
            {!r.error ? <TextDiff c={comparison(original, text(r.output_messages[0]?.content))} mode="split" testId="pg-diff" /> : null}
          </section>
        ))}
      </div>
    </Modal>
  );
}
