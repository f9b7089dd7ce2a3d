// The session as a conversation: every turn in order (what was sent, what the agent answered,
// a question and the reply to it), each linked to its run's full timeline. Virtualised with
// measured rows, so a session of 1,000 runs scrolls as smoothly as one of three. A message can
// be edited into a branch of the conversation, and a turn with branches switches between its
// versions (TurnBranches.tsx).
import { memo, useEffect, useRef, useState } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import type { TaggedPart, TranscriptTurn } from '../../../../shared/playground.ts';
import { isActive } from '../../../../shared/playground.ts';
import { errorMessage } from '../../api/client.ts';
import { useQueryClient } from '@tanstack/react-query';
import { invalidateRunLists, keys, refresh, useTranscript } from '../../api/queries.ts';
import { formatTime, shortId } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { StatusBadge } from '../StatusBadge.tsx';
import { PartsView } from './Parts.tsx';
import { EditTurn, VersionSwitcher } from './TurnBranches.tsx';
import { AddToDataset } from '../evals/AddToDataset.tsx';

const ORIGIN: Record<TranscriptTurn['origin'], string> = { send: 'You', resume: 'Your reply', rerun: 'Rerun' };

function UserSide({ turn }: { turn: TranscriptTurn }) {
  const [editing, setEditing] = useState(false);
  const texts = turn.input_parts.filter((p): p is Extract<TaggedPart, { kind: 'text' }> => p.kind === 'text');
  const others = turn.input_parts.filter((p) => p.kind !== 'text');
  return (
    <div className="turn__user" data-testid="turn-user">
      <span className="turn__who">
        {ORIGIN[turn.origin]} · {formatTime(turn.created_at)}
        <VersionSwitcher turn={turn} />
        {turn.origin !== 'resume' && !editing ? (
          <button
            type="button"
            className="linkbtn small"
            onClick={() => setEditing(true)}
            title="Edit this message and continue on a branch"
            data-testid="turn-edit-open"
          >
            Edit
          </button>
        ) : null}
      </span>
      {editing ? <EditTurn turn={turn} onClose={() => setEditing(false)} /> : null}
      {editing
        ? null
        : texts.map((t, i) => (
            <p key={i} className="turn__text">
              {t.text}
            </p>
          ))}
      {others.length ? <PartsView parts={others} testId="turn-input-parts" empty="" /> : null}
    </div>
  );
}

function AgentSide({ turn }: { turn: TranscriptTurn }) {
  const selectRun = useUi((s) => s.selectRun);
  const sessionId = useUi((s) => s.sessionId);
  const parts = turn.output_parts.filter((p) => p.kind !== 'status');
  return (
    <div className={`turn__agent${turn.status === 'input_required' ? ' turn__agent--question' : ''}`} data-testid="turn-agent">
      <span className="turn__who">
        Agent <StatusBadge status={turn.status} reason={turn.reason} compact />
        {turn.status === 'input_required' ? (
          <span className={`pill ${turn.answered_by ? 'pill--equal' : 'pill--changed'}`}>{turn.answered_by ? 'answered' : 'waiting for you'}</span>
        ) : null}
        <button
          type="button"
          className="linkbtn small"
          onClick={() => sessionId && selectRun(turn.session_id ?? sessionId, turn.run_id)}
          data-testid="turn-open-run"
        >
          timeline of {shortId(turn.run_id)}
        </button>
        {isActive(turn.status) ? null : <AddToDataset runId={turn.run_id} small />}
      </span>
      {isActive(turn.status) ? (
        <p className="muted">Working… open the timeline to watch it live.</p>
      ) : (
        <PartsView parts={parts} testId="turn-output" empty="No answer." />
      )}
    </div>
  );
}

/** One turn's content. Memoised: scrolling re-renders the list, not the turns already shown
 * (their Markdown is not parsed again on every frame). */
const TurnBody = memo(function TurnBody({ turn }: { turn: TranscriptTurn }) {
  return (
    <>
      <UserSide turn={turn} />
      <AgentSide turn={turn} />
    </>
  );
});

export function Transcript({ sessionId }: { sessionId: string }) {
  const q = useTranscript(sessionId);
  const parent = useRef<HTMLDivElement>(null);
  const turns = q.data ?? [];
  // A turn that ended while shown (a branch's first run) updates the run lists and the run.
  const qc = useQueryClient();
  const activeIds = turns.filter((t) => isActive(t.status)).map((t) => t.run_id);
  const wasActive = useRef<string[]>([]);
  const activeKey = activeIds.join(',');
  useEffect(() => {
    const ended = wasActive.current.filter((id) => !activeKey.split(',').includes(id));
    wasActive.current = activeKey ? activeKey.split(',') : [];
    if (!ended.length) return;
    for (const id of ended) refresh(qc, keys.run(id));
    invalidateRunLists(qc, sessionId);
  }, [activeKey, qc, sessionId]);
  const virtual = useVirtualizer({ count: turns.length, getScrollElement: () => parent.current, estimateSize: () => 160, overscan: 6 });
  // Opening the conversation shows its latest turn.
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || turns.length === 0 || q.hasNextPage) return;
    scrolled.current = true;
    virtual.scrollToIndex(turns.length - 1, { align: 'end' });
  }, [turns.length, q.hasNextPage, virtual]);

  if (q.isPending) return <p className="muted">Loading the conversation…</p>;
  if (q.isError) return <p className="field-error">Could not load the conversation: {errorMessage(q.error)}</p>;
  if (turns.length === 0) return <p className="muted">No messages yet.</p>;
  return (
    <div ref={parent} className="transcript" data-testid="transcript" data-turns={turns.length}>
      <div style={{ height: virtual.getTotalSize(), position: 'relative' }}>
        {virtual.getVirtualItems().map((item) => {
          const turn = turns[item.index];
          return (
            <article
              key={turn.run_id}
              ref={virtual.measureElement}
              data-index={item.index}
              className="turn"
              data-testid="turn"
              data-run-id={turn.run_id}
              data-origin={turn.origin}
              data-session-id={turn.session_id}
              style={{ position: 'absolute', top: 0, left: 0, right: 0, transform: `translateY(${item.start}px)` }}
            >
              <TurnBody turn={turn} />
            </article>
          );
        })}
      </div>
    </div>
  );
}
