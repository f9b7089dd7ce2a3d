// One run's timeline: status banner, phases, output (live deltas while in progress, the
// stored final parts after), scores, trace, diagnostics, input; actions cancel, rerun and
// resume.
import type { RunDetail, TaggedPart } from '../../../../shared/playground.ts';
import { isActive } from '../../../../shared/playground.ts';
import { ApiError, errorMessage } from '../../api/client.ts';
import { useCancelRun, useRun } from '../../api/queries.ts';
import { useStartRerun } from './useStartRerun.ts';
import { runEndOf, useRunStream, type RunStreamState } from '../../hooks/useRunStream.ts';
import { changedSince, useProject } from '../../api/project.ts';
import { formatDateTime, formatDuration, shortId } from '../../lib/format.ts';
import { useUi } from '../../state/ui.ts';
import { CopyButton } from '../CopyButton.tsx';
import { DataTree } from './DataTree.tsx';
import { Diagnostics } from './Diagnostics.tsx';
import { PartsView } from './Parts.tsx';
import { PauseBar } from './PauseBar.tsx';
import { PhaseStepper } from './PhaseStepper.tsx';
import { ScoresTable } from './ScoresTable.tsx';
import { Section } from './Section.tsx';
import { StateSection } from './StatePanel.tsx';
import { ForkLineage } from './ForkActions.tsx';
import { AddToDataset } from '../evals/AddToDataset.tsx';
import { StatusBanner, type RunFailure } from './StatusBanner.tsx';
import { streamSummary } from './stream-summary.ts';
import { loadRunIntoDraft } from '../../state/resend.ts';
import { TraceList } from './TraceList.tsx';
import { Waterfall } from './Waterfall.tsx';
import { Replayed, ReplayButton } from './Calls.tsx';
import { foldUsage } from '../../../../shared/usage.ts';
import { RunUsageMeta } from './UsageViews.tsx';

const isSpanEvent = (name: string) => name === 'span.start' || name === 'span.end';

function LiveOutput({ stream }: { stream: RunStreamState }) {
  return (
    <div className="live" data-testid="live-output-panel">
      {/* Not a live region: deltas are never announced (spec 6.2); phases are. */}
      <div className="live__text" data-testid="live-output" data-delta-count={stream.deltaCount} data-last-seq={stream.lastSeq} aria-busy="true">
        {stream.deltaText}
        <span className="live__caret" aria-hidden="true" />
      </div>
      <p className="live__meta muted">
        {stream.deltaText ? `Streaming… ${stream.deltaCount} chunks so far` : 'Waiting for the first words…'}
        {stream.connection === 'reconnecting' ? ' · connection dropped, reconnecting without losing anything…' : ''}
      </p>
    </div>
  );
}

function failureOf(parts: TaggedPart[]): RunFailure | null {
  const d = parts.find((p) => p.kind === 'data' && typeof p.data.errorCode === 'string');
  return d && d.kind === 'data' ? (d.data as RunFailure) : null;
}

/** Loads the run's input into the composer and puts the cursor there. */
async function editAndResend(run: RunDetail): Promise<void> {
  useUi.getState().cancelResume();
  await loadRunIntoDraft(run);
  document.getElementById('composer-text')?.focus();
}

/** The output below the banner, without what the banner already says: the status part, and
 * for an input_required run its question (shown once, in the banner). */
function shownParts(parts: TaggedPart[], status: string): TaggedPart[] {
  const question = status === 'input_required' ? questionOf(parts) : null;
  let questionDropped = false;
  return parts.filter((p) => {
    if (p.kind === 'status') return false;
    if (question !== null && !questionDropped && p.kind === 'text' && p.text === question) return !(questionDropped = true);
    return true;
  });
}

function questionOf(parts: TaggedPart[]): string | null {
  const t = parts.find((p) => p.kind === 'text');
  return t && t.kind === 'text' ? t.text : null;
}

function Actions({ run, active }: { run: RunDetail; active: boolean }) {
  const cancel = useCancelRun();
  const { rerun, start } = useStartRerun();
  const openCompare = useUi((s) => s.openCompare);
  const error = cancel.error ?? rerun.error;

  return (
    <div className="actions" role="group" aria-label="Run actions">
      {active ? (
        <button
          type="button"
          className="btn btn--danger-outline"
          onClick={() => cancel.mutate(run.run_id)}
          disabled={cancel.isPending}
          data-testid="cancel-run"
        >
          {cancel.isPending ? 'Cancelling…' : 'Cancel run'}
        </button>
      ) : null}
      {!active ? (
        <button
          type="button"
          className="btn"
          data-testid="edit-resend"
          title="Load this run's input into the composer to change it and send it again"
          onClick={() => void editAndResend(run)}
        >
          Edit and resend
        </button>
      ) : null}
      {!active ? (
        <button
          type="button"
          className="btn"
          disabled={rerun.isPending}
          data-testid="rerun-run"
          title="Run the same input again in a new conversation context"
          onClick={() => void start(run, run.run_id)}
        >
          {rerun.isPending ? 'Starting…' : 'Rerun'}
        </button>
      ) : null}
      {!active ? <ReplayButton run={run} /> : null}
      {!active && run.origin === 'rerun' && run.parent_run_id ? (
        <button
          type="button"
          className="btn btn--primary-outline"
          data-testid="compare-original"
          title="Left: the original run; right: this rerun"
          onClick={() => openCompare(run.parent_run_id, run.run_id)}
        >
          Compare with the original
        </button>
      ) : null}
      <button
        type="button"
        className="btn btn--ghost"
        data-testid="compare-with"
        title="Compare this run (as the baseline) with another"
        onClick={() => openCompare(run.run_id, null)}
      >
        Compare with…
      </button>
      {!active ? <AddToDataset runId={run.run_id} /> : null}
      {error && !(error instanceof ApiError && error.activeRunId) ? (
        <span className="field-error" role="alert">
          {errorMessage(error)}
        </span>
      ) : null}
    </div>
  );
}

/** Says when the project's code changed since the run ran, and shows it as it was. */
function CodeChanged({ run }: { run: RunDetail }) {
  const project = useProject();
  const openSource = useUi((s) => s.openSource);
  if (!run.code_files || !project.data?.file_sha256 || run.code_fingerprint === project.data.fingerprint) return null;
  const changed = changedSince(run.code_files, project.data.file_sha256);
  if (changed.length === 0) return null;
  return (
    <p className="banner banner--info code-changed" data-testid="code-changed">
      The code changed since this run ({changed.length} file{changed.length === 1 ? '' : 's'}):{' '}
      {changed.slice(0, 6).map((f) => (
        <button
          key={f}
          type="button"
          className="linkbtn"
          disabled={!run.code_files![f]}
          title={run.code_files![f] ? 'Show this file as it was at the run' : 'The run did not have this file'}
          onClick={() => openSource({ file: f, runId: run.run_id })}
        >
          <code>{f}</code>
        </button>
      ))}
      {changed.length > 6 ? ` and ${changed.length - 6} more` : ''}
    </p>
  );
}

function Imported({ run }: { run: RunDetail }) {
  if (!run.imported) return null;
  return (
    <span className="lineage" data-testid="run-imported" title={`Its id in the bundle: ${run.imported.from_run_id}`}>
      Imported{run.imported.project ? ` from ${run.imported.project}` : ''} on {formatDateTime(run.imported.at)} (was{' '}
      <code>{shortId(run.imported.from_run_id)}</code>)
    </span>
  );
}

function Lineage({ run }: { run: RunDetail }) {
  const selectRun = useUi((s) => s.selectRun);
  if (!run.parent_run_id) return null;
  return (
    <span className="lineage">
      {run.origin === 'resume' ? 'Reply to ' : run.origin === 'rerun' ? 'Rerun of ' : 'From '}
      <button type="button" className="linkbtn" onClick={() => selectRun(run.session_id, run.parent_run_id!)} data-testid="parent-run-link">
        {shortId(run.parent_run_id)}
      </button>
    </span>
  );
}

export function RunView({ runId }: { runId: string }) {
  const detail = useRun(runId);
  const stream = useRunStream(runId);
  const startResume = useUi((s) => s.startResume);
  const openSource = useUi((s) => s.openSource);

  if (detail.isPending) return <div className="runview runview--loading">Loading run…</div>;
  if (detail.isError) {
    return (
      <div className="runview">
        <div className="banner banner--danger" role="alert">
          Could not load run {runId}: {errorMessage(detail.error)}
        </div>
      </div>
    );
  }
  const run = detail.data;
  const status = stream.status ?? run.status;
  const reason = stream.status ? stream.reason : run.reason;
  const active = isActive(status);
  // Final parts: the stored detail once it has caught up with the stream, else run.output.
  const detailCaughtUp = !isActive(run.status);
  const finalParts = detailCaughtUp ? run.output_parts : (stream.outputParts ?? []);
  const showFinal = !active && (detailCaughtUp || stream.outputParts !== null);
  // Spans have their own waterfall; the trace list keeps the other events (routing, guardrail, ...).
  const traceEvents = stream.traces.filter((e) => !isSpanEvent(e.name));
  const spanCount = stream.traces.filter((e) => e.name === 'span.start').length;

  return (
    <article className="runview" data-testid="run-view" data-run-id={run.run_id} data-status={status} aria-labelledby="run-title">
      <header className="runview__header">
        <div>
          <h1 id="run-title" className="runview__title">
            Run <code>{run.run_id}</code>
            <CopyButton value={run.run_id} label="Copy id" />
          </h1>
          <p className="runview__meta">
            <Lineage run={run} />
            <ForkLineage run={run} />
            <Imported run={run} />
            <Replayed run={run} />
            <span>Started {formatDateTime(run.created_at)}</span>
            {run.duration_ms !== null ? <span>Took {formatDuration(run.duration_ms)}</span> : null}
            <RunUsageMeta
              totals={
                foldUsage(
                  run.run_id,
                  stream.traces.map((e) => ({ name: e.name, data: e.data ?? {} })),
                ).totals
              }
            />
            {run.context_id ? (
              <span title="A2A contextId: the conversation thread">
                context <code>{shortId(run.context_id)}</code>
              </span>
            ) : null}
          </p>
        </div>
        <Actions run={{ ...run, status }} active={active} />
      </header>

      <StatusBanner
        status={status}
        reason={reason}
        durationMs={run.duration_ms}
        recommendedCommand={stream.recommendedCommand}
        question={status === 'input_required' && detailCaughtUp ? questionOf(run.output_parts) : null}
        onReply={reason === 'breakpoint' ? undefined : () => startResume(run.run_id)}
        failure={status === 'failed' && detailCaughtUp ? failureOf(run.output_parts) : null}
        onEditResend={() => void editAndResend(run)}
        onSource={(f) => openSource({ node: f.node, file: f.source?.file, line: f.source?.line, column: f.source?.column })}
      />

      {status === 'input_required' && reason === 'breakpoint' ? <PauseBar run={run} /> : null}

      <PhaseStepper phases={stream.phases} status={status} />

      <CodeChanged run={run} />

      <Section title="Output" testId="output-section">
        {active || !showFinal ? (
          <LiveOutput stream={stream} />
        ) : (
          <>
            {/* The banner already states the run's status: its status part would repeat it. */}
            <PartsView parts={shownParts(finalParts, status)} testId="final-output" empty="The run produced no output." />
            {stream.deltaCount > 0 ? (
              <p className="muted small" data-testid="stream-summary" data-delta-count={stream.deltaCount} data-delta-chars={stream.deltaText.length}>
                {streamSummary(stream.deltaCount, status)}
              </p>
            ) : null}
          </>
        )}
      </Section>

      {stream.diagnostics.length ? (
        <Section title="Diagnostics" count={stream.diagnostics.length} testId="diagnostics-section">
          <Diagnostics items={stream.diagnostics} />
        </Section>
      ) : null}

      {run.scores.length ? (
        <Section title="Scores" count={run.scores.length} testId="scores-section">
          <ScoresTable scores={run.scores} />
        </Section>
      ) : null}

      <Section title="Nodes" count={spanCount} testId="nodes-section">
        <Waterfall traces={stream.traces} ended={runEndOf(stream)} sessionId={run.session_id} runId={run.run_id} />
      </Section>

      <StateSection run={run} active={active} />

      <Section title="Trace" count={traceEvents.length} testId="trace-section" defaultOpen={false}>
        <TraceList events={traceEvents} />
      </Section>

      <Section title="Input" count={run.input_parts.length} testId="input-section" defaultOpen={false}>
        <PartsView parts={run.input_parts} testId="input-parts" empty="No input parts." />
        {Object.keys(run.metadata ?? {}).length ? (
          <div className="input-meta">
            <h3 className="subhead">Metadata</h3>
            <DataTree value={run.metadata} openDepth={1} />
          </div>
        ) : null}
      </Section>
    </article>
  );
}
