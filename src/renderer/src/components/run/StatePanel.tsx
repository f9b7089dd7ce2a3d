// The graph's state at every step of a run (docs/playground-api.md, "The state at every
// step"): the run's checkpoints as a list of steps (which node wrote which channels, what runs
// next), and for the chosen step what it changed and every channel, each closed until opened
// (a large state stays responsive: only opened channels render). Messages read as messages.
import { useEffect, useState } from 'react';
import type { JsonChange } from '../../../../shared/compare.ts';
import type { RunDetail } from '../../../../shared/playground.ts';
import type { SessionCheckpoint, SessionCheckpointDetail } from '../../../../shared/thread-state.ts';
import { errorMessage } from '../../api/client.ts';
import { useCheckpoint, useRunCheckpoints } from '../../api/state.ts';
import { DataTree, TreeToggle } from './DataTree.tsx';
import { ForkActions } from './ForkActions.tsx';
import { Section } from './Section.tsx';
import { useUi } from '../../state/ui.ts';

const MESSAGE_TYPES = new Set(['human', 'ai', 'system', 'tool', 'function', 'generic', 'developer', 'remove']);

function isMessageList(v: unknown): v is { type: string; content: unknown }[] {
  return Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'object' && m !== null && MESSAGE_TYPES.has((m as { type?: string }).type ?? ''));
}

/** A subgraph's step names its subgraph (`inner › After lookup`): its namespace is
 * `inner:<task>` (`|` between levels). */
function subgraphOf(c: SessionCheckpoint): string {
  return c.checkpoint_ns
    .split('|')
    .filter(Boolean)
    .map((part) => part.split(':')[0])
    .join(' › ');
}

function stepLabel(c: SessionCheckpoint): string {
  const inside = subgraphOf(c);
  return inside ? `${inside} › ${topLabel(c)}` : topLabel(c);
}

function topLabel(c: SessionCheckpoint): string {
  if (c.source === 'input') return 'Input';
  const nodes = Object.keys(c.writes);
  if (nodes.length === 1 && nodes[0] === '__start__') return 'Input applied';
  return nodes.length ? `After ${nodes.join(', ')}` : c.source === 'loop' ? `Step ${c.step}` : c.source;
}

const kib = (n: number) => (n < 1024 ? `${n} B` : `${(n / 1024).toFixed(n < 10 * 1024 ? 1 : 0)} KiB`);
const short = (v: unknown) => {
  const text = JSON.stringify(v);
  return text === undefined ? '' : text.length > 80 ? `${text.slice(0, 79)}…` : text;
};

function Messages({ items }: { items: { type: string; content: unknown }[] }) {
  return (
    <ol className="state__messages" data-testid="state-messages">
      {items.map((m, i) => (
        <li key={i} className={`state__message state__message--${m.type}`} data-type={m.type}>
          <span className="state__role">{m.type}</span>
          <span className="state__content">{typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}</span>
        </li>
      ))}
    </ol>
  );
}

function Channel({ name, value, size }: { name: string; value: unknown; size: number }) {
  const [open, setOpen] = useState(false);
  return (
    <li className="state__channel" data-testid="state-channel" data-channel={name}>
      <TreeToggle open={open} onToggle={() => setOpen(!open)} name={name} count={kib(size)}>
        {!open ? <span className="state__preview muted">{short(value)}</span> : null}
      </TreeToggle>
      {open ? (
        <div className="state__value" data-testid="state-channel-value">
          {isMessageList(value) ? (
            <Messages items={value} />
          ) : typeof value === 'object' && value !== null ? (
            <DataTree value={value as Record<string, unknown>} openDepth={1} />
          ) : (
            <code>{JSON.stringify(value)}</code>
          )}
        </div>
      ) : null}
    </li>
  );
}

function Change({ c }: { c: JsonChange }) {
  return (
    <li className={`state__change state__change--${c.op}`} data-testid="state-change" data-path={c.path} data-op={c.op}>
      <code className="state__path">{c.path || '/'}</code>
      {c.op !== 'add' ? <span className="state__old">{short(c.old)}</span> : null}
      {c.op === 'replace' ? <span aria-label="becomes"> → </span> : null}
      {c.op !== 'remove' ? <span className="state__new">{short(c.new)}</span> : null}
    </li>
  );
}

/** One checkpoint's state: what its step changed, every channel, its pending writes; the fork
 * actions when the run that wrote it is known (`runId`). */
export function Detail({ runId, detail }: { runId: string | null; detail: SessionCheckpointDetail }) {
  const changes = detail.diff?.changes ?? [];
  return (
    <div className="state__detail" data-testid="state-detail" data-checkpoint-id={detail.checkpoint_id}>
      <p className="muted small">
        {detail.checkpoint_ns ? `Inside subgraph ${subgraphOf(detail)} · ` : ''}Step {detail.step} · {detail.source}
        {detail.next.length ? ` · next: ${detail.next.join(', ')}` : ' · the turn ends here'}
      </p>
      {runId ? <ForkActions runId={runId} detail={detail} /> : null}
      <h3 className="subhead">What this step changed</h3>
      {changes.length ? (
        <ul className="state__changes">
          {changes.map((c, i) => (
            <Change key={i} c={c} />
          ))}
        </ul>
      ) : (
        <p className="muted small">Nothing in the state.</p>
      )}
      {detail.diff?.truncated ? <p className="muted small">More changes than shown.</p> : null}
      <h3 className="subhead">State</h3>
      <ul className="state__channels">
        {Object.entries(detail.values).map(([name, value]) => (
          <Channel key={name} name={name} value={value} size={detail.sizes[name] ?? 0} />
        ))}
      </ul>
      {detail.pending_writes.length ? (
        <>
          <h3 className="subhead">Pending writes</h3>
          <DataTree value={detail.pending_writes} openDepth={0} testId="state-pending" />
        </>
      ) : null}
    </div>
  );
}

/** The run's steps and the chosen step's state; asks the studio only once `enabled`. `focus`:
 * a checkpoint asked for from elsewhere (a span, a graph node), chosen when it arrives. */
export function StatePanel({ runId, sessionId, enabled, focus }: { runId: string; sessionId: string; enabled: boolean; focus?: string | null }) {
  const list = useRunCheckpoints(runId, enabled);
  const [chosen, setChosen] = useState<string | null>(null);
  useEffect(() => {
    if (focus) setChosen(focus);
  }, [focus]);
  const selected = chosen ?? list.data?.at(-1)?.checkpoint_id ?? null;
  const ns = list.data?.find((c) => c.checkpoint_id === selected)?.checkpoint_ns ?? '';
  const detail = useCheckpoint(sessionId, enabled ? selected : null, ns);
  if (!enabled) return null;
  if (list.isPending) return <p className="muted small">Reading the run's checkpoints…</p>;
  if (list.isError)
    return (
      <p className="error small" role="alert">
        {errorMessage(list.error)}
      </p>
    );
  if (!list.data.length) return <p className="muted small">This run wrote no checkpoint (it ended before reaching the agent).</p>;
  return (
    <div className="state" data-testid="state-panel">
      <ol className="state__steps" aria-label="Steps">
        {list.data.map((c) => (
          <li key={c.checkpoint_id}>
            <button
              type="button"
              className="state__step"
              aria-current={c.checkpoint_id === selected ? 'step' : undefined}
              data-testid="state-step"
              data-checkpoint-id={c.checkpoint_id}
              data-writes={Object.keys(c.writes).join(',')}
              data-ns={c.checkpoint_ns || undefined}
              onClick={() => setChosen(c.checkpoint_id)}
            >
              <span className="state__step-n">{c.step}</span> {stepLabel(c)}
            </button>
          </li>
        ))}
      </ol>
      {detail.isError ? (
        <p className="error small" role="alert">
          {errorMessage(detail.error)}
        </p>
      ) : detail.data ? (
        <Detail runId={runId} detail={detail.data} />
      ) : (
        <p className="muted small">Reading the state…</p>
      )}
    </div>
  );
}

/** The run view's "State" section: folded at first, read from the studio once opened. */
export function StateSection({ run, active }: { run: Pick<RunDetail, 'run_id' | 'session_id'>; active: boolean }) {
  // A checkpoint of this run asked for from elsewhere opens the section at it (once).
  const asked = useUi((s) => (s.stateFocus?.runId === run.run_id ? s.stateFocus.checkpointId : null));
  const [focus, setFocus] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (!asked) return;
    setFocus(asked);
    setOpen(true);
    useUi.setState({ stateFocus: null });
    requestAnimationFrame(() => document.querySelector('[data-testid="state-section"]')?.scrollIntoView({ block: 'start' }));
  }, [asked]);
  return (
    <Section title="State" testId="state-section" defaultOpen={false} open={open} onToggle={setOpen}>
      {active ? <p className="muted small">The state at each step shows once the run has ended.</p> : null}
      <StatePanel runId={run.run_id} sessionId={run.session_id} enabled={open && !active} focus={focus} />
    </Section>
  );
}
