// The composer: text, data parts (Monaco JSON), files and metadata; Send creates a run in
// the selected session, or, in resume mode, the child run of an input_required run.
// One active run per project (spec 8): while one is active Send is disabled and says why.
import { useProject } from '../../api/project.ts';
import { useEffect, useMemo, useRef, useState, type DragEvent, type KeyboardEvent } from 'react';
import { isActive } from '../../../../shared/playground.ts';
import { ApiError, errorMessage } from '../../api/client.ts';
import { keys, useBlockingRun, useCreateRun, useInputContracts, useResumeRun, useRunOptions, useRuns, useSkillExamples } from '../../api/queries.ts';
import { useQueryClient } from '@tanstack/react-query';
import { compose } from '../../lib/compose.ts';
import { shortId } from '../../lib/format.ts';
import { useDraft } from '../../state/draft.ts';
import { useUi } from '../../state/ui.ts';
import { statusLabel } from '../StatusBadge.tsx';
import { DataParts } from './DataParts.tsx';
import { SkillExamples } from './SkillExamples.tsx';
import { FileAttachments, filesToDrafts } from './FileAttachments.tsx';
import { MetadataEditor } from './MetadataEditor.tsx';
import { useContractCheck } from '../../api/contractCheck.ts';
import { runOptionMetadata } from '../../lib/run-options.ts';
import { ConflictBanner } from './ConflictBanner.tsx';
import { RunOptionFields, StepRunToggle } from './RunOptions.tsx';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);
export const SEND_SHORTCUT = isMac ? '⌘ Enter' : 'Ctrl Enter';

type Panel = 'data' | 'files' | 'metadata' | null;

/** `compact`: text, run options and Send only (beside the graph); the full composer also
 * has data parts, files and the metadata editor. */
export function Composer({ sessionId, compact = false }: { sessionId: string; compact?: boolean }) {
  const draft = useDraft();
  const mode = useUi((s) => s.composerMode);
  const cancelResume = useUi((s) => s.cancelResume);
  const selectRun = useUi((s) => s.selectRun);
  const blockingRunId = useUi((s) => s.blockingRunId);
  const setBlockingRun = useUi((s) => s.setBlockingRun);
  const conflict = useUi((s) => s.conflict);
  const setConflict = useUi((s) => s.setConflict);

  const contracts = useInputContracts();
  const runOptions = useRunOptions();
  const skillExamples = useSkillExamples();
  const exampleTexts = useMemo(() => skillExamples.data?.map((e) => e.text), [skillExamples.data]);
  const runs = useRuns(sessionId);
  const blocking = useBlockingRun(blockingRunId);
  const createRun = useCreateRun();
  const resumeRun = useResumeRun();

  const [panel, setPanel] = useState<Panel>(null);
  const [problems, setProblems] = useState<string[]>([]);
  const [invalidDataId, setInvalidDataId] = useState<string | undefined>();
  const [sendError, setSendError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [stepRun, setStepRun] = useState(false); // this run only: pause before every node
  const textRef = useRef<HTMLTextAreaElement>(null);

  // Which run holds the project's single active slot, as far as this window knows.
  const activeHere = runs.data?.find((r) => isActive(r.status));
  const blocker = useMemo(() => {
    if (activeHere) return { runId: activeHere.run_id, status: activeHere.status };
    if (blockingRunId && (!blocking.data || isActive(blocking.data.status))) return { runId: blockingRunId, status: blocking.data?.status ?? 'queued' };
    return null;
  }, [activeHere, blockingRunId, blocking.data]);

  // A blocking run that ended frees the composer (and retires its 409 banner).
  const blockingEnded = Boolean(blockingRunId && blocking.data && !isActive(blocking.data.status));
  useEffect(() => {
    if (!blockingEnded || !blockingRunId) return;
    setBlockingRun(null);
    if (useUi.getState().conflict?.activeRunId === blockingRunId) setConflict(null);
  }, [blockingEnded, blockingRunId, setBlockingRun, setConflict]);

  const pending = createRun.isPending || resumeRun.isPending;
  // A project that does not load cannot answer: say so rather than fail the run.
  const project = useProject();
  const invalid = project.data?.state === 'invalid' ? project.data.diagnostics.length : 0;
  // Data parts naming a declared contract are checked as the author types (the runtime's rules).
  const declared = useMemo(() => (contracts.data ?? []).filter((c) => c.json_schema).map((c) => c.schema), [contracts.data]);
  const contractCheck = useContractCheck(
    draft.dataParts.map((p) => ({ id: p.id, text: p.json })),
    declared,
  );
  const contractFailures = contractCheck.checks.filter((c) => c.problems.length > 0);
  const contractProblemCount = contractFailures.reduce((n, c) => n + c.problems.length, 0);
  const disabled = blocker !== null || pending || invalid > 0 || contractProblemCount > 0;

  const sending = useRef(false);
  const send = async () => {
    if (disabled || sending.current) return;
    sending.current = true;
    try {
      await submit();
    } finally {
      sending.current = false;
    }
  };

  const submit = async () => {
    setSendError(null);
    // Run options go first: a key typed in the metadata editor overrides its field.
    const options = runOptionMetadata(runOptions.data ?? [], draft.runOptions);
    const composed = compose(draft);
    const result = composed.ok && options.problems.length ? { ok: false as const, problems: options.problems } : composed;
    if (!result.ok) {
      setProblems(result.problems);
      setInvalidDataId(result.dataPartId);
      if (result.dataPartId) setPanel('data');
      return;
    }
    setProblems([]);
    setInvalidDataId(undefined);
    const metadata = { ...options.metadata, ...result.metadata };
    try {
      const accepted =
        mode.kind === 'resume'
          ? await resumeRun.mutateAsync({ runId: mode.runId, parts: result.parts, metadata })
          : await createRun.mutateAsync({ sessionId, body: { parts: result.parts, metadata, ...(stepRun ? { debug: { step: true } } : {}) } });
      draft.clearParts();
      setStepRun(false);
      setPanel(null);
      setConflict(null);
      setBlockingRun(accepted.run_id);
      if (mode.kind === 'resume') cancelResume();
      selectRun(accepted.session_id ?? sessionId, accepted.run_id);
    } catch (err) {
      if (err instanceof ApiError && err.activeRunId) {
        // spec 4.3 rule 2 / 7.3: another run is active in this project.
        setConflict({ activeRunId: err.activeRunId, message: err.message });
        setBlockingRun(err.activeRunId);
      } else {
        setSendError(errorMessage(err));
      }
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    // Monaco handles its own Ctrl/Cmd+Enter (and marks the event handled).
    if ((e.ctrlKey || e.metaKey) && e.key === 'Enter' && !e.defaultPrevented) {
      e.preventDefault();
      void send();
    }
  };

  const onDrop = async (e: DragEvent) => {
    if (!e.dataTransfer.files.length) return;
    e.preventDefault();
    setDragging(false);
    draft.addFiles(await filesToDrafts(e.dataTransfer.files));
    setPanel('files');
  };

  const extraCount = draft.extra.filter((x) => x.key.trim()).length + (draft.userId ? 1 : 0) + Object.values(draft.labels).filter(Boolean).length;
  const qc = useQueryClient();
  const toggle = (p: Exclude<Panel, null>) => {
    // Opening the data panel asks again for the contracts and what earlier runs used (runs
    // sent from elsewhere, a reloaded project).
    if (p === 'data' && panel !== 'data') void qc.invalidateQueries({ queryKey: keys.contracts });
    setPanel((cur) => (cur === p ? null : p));
  };

  return (
    <section
      className={`composer${compact ? ' composer--compact' : ''}${dragging ? ' is-dragging' : ''}${mode.kind === 'resume' ? ' composer--resume' : ''}`}
      aria-label={mode.kind === 'resume' ? 'Reply to the run that needs input' : 'New message'}
      data-testid={compact ? 'compact-composer' : 'composer'}
      data-mode={mode.kind}
      onKeyDown={onKeyDown}
      onDragOver={(e) => {
        if (e.dataTransfer.types.includes('Files')) {
          e.preventDefault();
          setDragging(true);
        }
      }}
      onDragLeave={(e) => {
        if (e.currentTarget === e.target) setDragging(false);
      }}
      onDrop={onDrop}
    >
      {mode.kind === 'resume' ? (
        <div className="composer__mode" data-testid="composer-resume-banner">
          <span>
            Replying to <code>{shortId(mode.runId)}</code>, which needs input. Your answer continues the same task as a child run.
          </span>
          <button type="button" className="btn btn--small btn--ghost" onClick={cancelResume} data-testid="composer-resume-cancel">
            Write a new message instead
          </button>
        </div>
      ) : null}

      {conflict ? <ConflictBanner conflict={conflict} sessionId={blocking.data?.session_id} onDismiss={() => setConflict(null)} /> : null}

      <label htmlFor="composer-text" className="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-text"
        ref={textRef}
        className="composer__text"
        placeholder={mode.kind === 'resume' ? 'Answer the agent’s question…' : 'Write a message to the agent…'}
        value={draft.text}
        onChange={(e) => draft.setText(e.target.value)}
        rows={compact ? 2 : 3}
        data-testid="composer-text"
        autoFocus={mode.kind === 'resume'}
      />
      {mode.kind !== 'resume' && !draft.text && !compact ? (
        <SkillExamples
          examples={skillExamples.data ?? []}
          onPick={(text) => {
            draft.setText(text);
            textRef.current?.focus();
          }}
        />
      ) : null}

      {panel === 'data' ? (
        <DataParts
          contracts={contracts.data ?? []}
          contractsNote={contracts.isError ? 'The studio did not list input contracts; you can still add JSON data.' : undefined}
          onSubmit={() => void send()}
          invalidId={invalidDataId}
          skillExamples={exampleTexts}
        />
      ) : null}
      {panel === 'files' ? <FileAttachments /> : null}
      <RunOptionFields options={runOptions.data ?? []} />
      {panel === 'metadata' ? <MetadataEditor /> : null}

      {problems.length ? (
        <ul className="field-error composer__problems" role="alert" data-testid="composer-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
      {contractFailures.length ? (
        <div className="field-error composer__problems" role="alert" data-testid="contract-problems">
          {contractFailures.map((c) => {
            const part = draft.dataParts.find((p) => p.id === c.id);
            return (
              <div key={c.id}>
                <strong>{part?.label ?? 'Data'}</strong> does not meet contract <code>{c.schema}</code>:
                <ul>
                  {c.problems.map((p, i) => (
                    <li key={i} data-testid="contract-problem" data-path={p.path}>
                      <code>{p.path || '(the part)'}</code> {p.message}
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
        </div>
      ) : null}
      {sendError ? (
        <p className="field-error" role="alert" data-testid="send-error">
          Could not send: {sendError}
        </p>
      ) : null}

      <div className="composer__bar">
        <div className="composer__toggles" role="group" aria-label="Message parts" hidden={compact}>
          <button
            type="button"
            className={`toggle${panel === 'data' ? ' is-on' : ''}`}
            aria-expanded={panel === 'data'}
            onClick={() => toggle('data')}
            data-testid="toggle-data"
          >
            Data{draft.dataParts.length ? ` (${draft.dataParts.length})` : ''}
          </button>
          <button
            type="button"
            className={`toggle${panel === 'files' ? ' is-on' : ''}`}
            aria-expanded={panel === 'files'}
            onClick={() => toggle('files')}
            data-testid="toggle-files"
          >
            Files{draft.files.length ? ` (${draft.files.length})` : ''}
          </button>
          <button
            type="button"
            className={`toggle${panel === 'metadata' ? ' is-on' : ''}`}
            aria-expanded={panel === 'metadata'}
            onClick={() => toggle('metadata')}
            data-testid="toggle-metadata"
          >
            Metadata{extraCount ? ` (${extraCount})` : ''}
          </button>
        </div>
        <div className="composer__send">
          {mode.kind !== 'resume' ? <StepRunToggle on={stepRun} onChange={setStepRun} /> : null}
          {blocker ? (
            <span className="composer__why" id="send-why" data-testid="send-blocked-reason" data-run-id={blocker.runId}>
              Run <code>{shortId(blocker.runId)}</code> is {statusLabel(blocker.status).toLowerCase()}: one run at a time per project.
            </span>
          ) : invalid ? (
            <span className="composer__why" id="send-why" data-testid="send-blocked-reason" data-reason="project_invalid">
              The project does not load ({invalid} problem{invalid === 1 ? '' : 's'}): fix it first.
            </span>
          ) : contractProblemCount ? (
            <span className="composer__why" id="send-why" data-testid="send-blocked-reason" data-reason="contract">
              The data does not meet its contract ({contractProblemCount} problem{contractProblemCount === 1 ? '' : 's'} above).
            </span>
          ) : (
            <span className="composer__why muted">
              <kbd>{SEND_SHORTCUT}</kbd> sends
            </span>
          )}
          <button
            type="button"
            className="btn btn--primary"
            onClick={() => void send()}
            disabled={disabled}
            aria-describedby={blocker || invalid || contractProblemCount ? 'send-why' : undefined}
            data-testid="send"
          >
            {pending ? 'Sending…' : mode.kind === 'resume' ? 'Send reply' : 'Send'}
          </button>
        </div>
      </div>
    </section>
  );
}
