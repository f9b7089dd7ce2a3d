// The state editor of the State panel (docs/studio-ui.md, "Edit the state"): the checkpoint's
// channels as JSON in Monaco, validated as the author types against the state's JSON Schema
// (GET /state-schema: the graph's channels, no other property), problems listed under it; Fork
// (a new session from this step) and, on the step a run is paused at, Continue or Step with the
// edit (the live run goes on with it). Only changed channels are sent; the studio checks the
// edit again before anything runs and a refusal is shown here.
import { useState } from 'react';
import type { SessionCheckpointDetail } from '../../../../shared/thread-state.ts';
import type { BreakpointAction } from '../../../../shared/breakpoints.ts';
import { ApiError, errorMessage } from '../../api/client.ts';
import { useContinueEdited, useStateSchema } from '../../api/state.ts';
import { editedChannels } from '../../lib/fork-edit.ts';
import { useUi } from '../../state/ui.ts';
import { JsonEditor, type EditorProblem } from '../composer/JsonEditor.tsx';

export function StateEdit({
  runId,
  sessionId,
  detail,
  pausedHere,
  onFork,
  forking,
  forkError,
}: {
  runId: string;
  sessionId: string;
  detail: SessionCheckpointDetail;
  /** The run is paused at this checkpoint: the edit can go with Continue / Step. */
  pausedHere: boolean;
  onFork: (values: Record<string, unknown>) => void;
  forking: boolean;
  forkError: unknown;
}) {
  const [text, setText] = useState(() => JSON.stringify(detail.values, null, 2));
  const [problems, setProblems] = useState<EditorProblem[]>([]);
  const [invalid, setInvalid] = useState<string | null>(null);
  const schema = useStateSchema(true);
  const cont = useContinueEdited();
  const selectRun = useUi((s) => s.selectRun);
  const setConflict = useUi((s) => s.setConflict);

  const edit = (): Record<string, unknown> | null => {
    const got = editedChannels(detail.values, text);
    if ('error' in got) {
      setInvalid(got.error);
      return null;
    }
    setInvalid(null);
    return got.values;
  };
  const goOn = async (action: BreakpointAction) => {
    const values = edit();
    if (!values) return;
    try {
      const r = await cont.mutateAsync({ runId, action, values });
      selectRun(sessionId, r.run_id);
    } catch (err) {
      if (err instanceof ApiError && err.activeRunId) setConflict({ activeRunId: err.activeRunId, message: err.message });
    }
  };
  const blocked = problems.length > 0 || forking || cont.isPending;
  const refused = invalid ?? (cont.error ? errorMessage(cont.error) : forkError ? errorMessage(forkError) : null);

  return (
    <div className="state__editor" data-testid="state-editor" data-problems={problems.length}>
      <JsonEditor
        modelId={`state-edit-${detail.checkpoint_id}`}
        value={text}
        onChange={setText}
        schema={schema.data?.schema}
        schemaId="agent-state"
        label={pausedHere ? 'State to continue with (JSON)' : 'State to fork with (JSON)'}
        testId="fork-editor"
        onProblems={setProblems}
      />
      {problems.length ? (
        <ul className="state__problems error small" role="alert" data-testid="state-edit-problems">
          {problems.map((p, i) => (
            <li key={i} data-testid="state-edit-problem" data-line={p.line}>
              Line {p.line}: {p.message}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="actions">
        <button
          type="button"
          className={pausedHere ? 'btn' : 'btn btn--primary'}
          disabled={blocked}
          data-testid="fork-submit"
          onClick={() => {
            const values = edit();
            if (values) onFork(values);
          }}
        >
          {forking ? 'Starting…' : 'Fork'}
        </button>
        {pausedHere ? (
          <>
            <button type="button" className="btn btn--primary" disabled={blocked} data-testid="edit-continue" onClick={() => void goOn('continue')}>
              {cont.isPending ? 'Starting…' : 'Continue with this state'}
            </button>
            <button type="button" className="btn" disabled={blocked} data-testid="edit-step" onClick={() => void goOn('step')}>
              Step with this state
            </button>
          </>
        ) : null}
      </div>
      {refused ? (
        <p className="error small" role="alert" data-testid="fork-error">
          {refused}
        </p>
      ) : null}
    </div>
  );
}
