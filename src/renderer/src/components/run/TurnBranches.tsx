// Conversation branches in the transcript (docs/studio-ui.md, "Conversation branches"): "Edit"
// on a user turn opens its text; "Send as branch" branches the conversation there and opens the
// branch; a turn with versions shows "2 of 3" with buttons to move between them.
import { useState } from 'react';
import type { TaggedPart, TranscriptTurn } from '../../../../shared/playground.ts';
import type { InputPart } from '../../../../shared/playground-requests.ts';
import { useBranchRun } from '../../api/branches.ts';
import { ApiError, errorMessage } from '../../api/client.ts';
import { useUi } from '../../state/ui.ts';

/** Opens a session's conversation at one of its runs (staying in the conversation view). */
function useOpenConversation() {
  const selectRun = useUi((s) => s.selectRun);
  const setMode = useUi((s) => s.setSessionMode);
  return (sessionId: string, runId: string) => {
    selectRun(sessionId, runId);
    setMode('conversation');
  };
}

/** "‹ 2 of 3 ›": the versions of a turn that has branches; the original is the first. */
export function VersionSwitcher({ turn }: { turn: TranscriptTurn }) {
  const open = useOpenConversation();
  const versions = turn.versions ?? [];
  if (versions.length < 2) return null;
  const at = versions.findIndex((v) => v.run_id === turn.run_id);
  const go = (i: number) => open(versions[i].session_id, versions[i].run_id);
  return (
    <span className="turn__versions" role="group" aria-label="Versions of this message" data-testid="turn-versions" data-at={at + 1} data-of={versions.length}>
      <button
        type="button"
        className="iconbtn small"
        aria-label="Previous version"
        disabled={at <= 0}
        onClick={() => go(at - 1)}
        data-testid="turn-version-prev"
      >
        ‹
      </button>
      <span data-testid="turn-version-label">
        {at + 1} of {versions.length}
      </span>
      <button
        type="button"
        className="iconbtn small"
        aria-label="Next version"
        disabled={at >= versions.length - 1}
        onClick={() => go(at + 1)}
        data-testid="turn-version-next"
      >
        ›
      </button>
    </span>
  );
}

const textOf = (parts: TaggedPart[]) =>
  parts
    .filter((p): p is Extract<TaggedPart, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');

/** The edited message: the new text, and the turn's data parts as they were (files are not carried over). */
function editedParts(turn: TranscriptTurn, text: string): InputPart[] {
  const data = turn.input_parts
    .filter((p): p is Extract<TaggedPart, { kind: 'data' }> => p.kind === 'data')
    .map((p) => ({ kind: 'data' as const, data: p.data }));
  return [...(text.trim() ? [{ kind: 'text' as const, text }] : []), ...data];
}

/** The editor of a user turn: "Send as branch" makes the branch and opens it. */
export function EditTurn({ turn, onClose }: { turn: TranscriptTurn; onClose: () => void }) {
  const [text, setText] = useState(() => textOf(turn.input_parts));
  const branch = useBranchRun();
  const open = useOpenConversation();
  const setBlockingRun = useUi((s) => s.setBlockingRun);
  const setConflict = useUi((s) => s.setConflict);
  const parts = editedParts(turn, text);
  const send = async () => {
    try {
      const accepted = await branch.mutateAsync({ runId: turn.run_id, parts });
      setBlockingRun(accepted.run_id);
      onClose();
      open(accepted.session_id, accepted.run_id);
    } catch (err) {
      // Another run is active (409): the composer's banner says which, as for any message.
      if (err instanceof ApiError && err.activeRunId) {
        setConflict({ activeRunId: err.activeRunId, message: err.message });
        setBlockingRun(err.activeRunId);
      }
    }
  };
  return (
    <div className="turn__edit" data-testid="turn-edit">
      <textarea
        className="turn__edit-text"
        aria-label="Edited message"
        value={text}
        rows={Math.min(8, Math.max(2, text.split('\n').length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          // Ctrl/⌘ Enter sends as a branch (as the composer sends), Escape cancels.
          if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && parts.length && !branch.isPending) {
            e.preventDefault();
            void send();
          } else if (e.key === 'Escape') onClose();
        }}
        autoFocus
        data-testid="turn-edit-text"
      />
      {branch.isError ? <p className="field-error">Could not branch: {errorMessage(branch.error)}</p> : null}
      <div className="turn__edit-actions">
        <button type="button" className="btn btn--small" onClick={onClose} data-testid="turn-edit-cancel">
          Cancel
        </button>
        <button
          type="button"
          className="btn btn--primary btn--small"
          disabled={parts.length === 0 || branch.isPending}
          onClick={() => void send()}
          title="Continue the conversation from here on a branch; the original stays as it is"
          data-testid="turn-branch-send"
        >
          {branch.isPending ? 'Branching…' : 'Send as branch'}
        </button>
      </div>
    </div>
  );
}
