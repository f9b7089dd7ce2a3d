// The run's state and reason in words, with what to do next. For runtime_unavailable the
// recommended command from the failed phase event is shown with a copy button (spec 6.2).
import type { RunStatus } from '../../../../shared/playground.ts';
import { formatDuration } from '../../lib/format.ts';
import { CopyButton } from '../CopyButton.tsx';
import { reasonLabel, StatusBadge } from '../StatusBadge.tsx';

const REASON_TEXT: Record<string, string> = {
  runtime_unavailable: 'The studio could not reach the agent runtime. Start it with the command below, then rerun.',
  runtime_restarted: 'The runtime restarted while this run was in progress (a code change or a crash). Rerun it to try again.',
  project_validation: 'The project did not pass validation. Fix the diagnostics below, then rerun.',
  user_cancelled: 'You cancelled this run.',
  studio_shutdown: 'The studio shut down while this run was in progress.',
};

function describe(status: RunStatus, durationMs: number | null): string {
  switch (status) {
    case 'queued':
      return 'Waiting for its turn.';
    case 'preparing':
      return 'Preparing the project…';
    case 'running':
      return 'The agent is working. Its answer streams below.';
    case 'input_required':
      return 'The agent needs more input to continue. Reply to resume the same task.';
    case 'completed':
      return durationMs !== null ? `Finished in ${formatDuration(durationMs)}.` : 'Finished.';
    case 'failed':
      return 'The run failed.';
    case 'cancelled':
      return 'The run was cancelled.';
    case 'interrupted':
      return 'The run was interrupted before it finished.';
  }
}

/** The error DataPart of a failed run (spec 7.2), as far as the banner needs it. */
export interface RunFailure {
  errorCode?: string;
  errorMessage?: string;
  node?: string;
  source?: { file: string; line: number; column: number };
}

/** Whose problem it is, and the next step. */
function FailureHint({ failure, onEditResend, onSource }: { failure: RunFailure; onEditResend?: () => void; onSource?: (f: RunFailure) => void }) {
  if (failure.errorCode === 'INVALID_INPUT') {
    return (
      <div className="banner__hint" data-testid="failure-input">
        <p>
          <strong>Your input was refused</strong>, not the agent: {failure.errorMessage ?? 'it does not meet what the agent accepts'}.
        </p>
        {onEditResend ? (
          <button type="button" className="btn btn--primary btn--small" onClick={onEditResend} data-testid="banner-edit-resend">
            Fix it and resend
          </button>
        ) : null}
      </div>
    );
  }
  if (failure.node) {
    const where = failure.source ? `${failure.source.file}:${failure.source.line}` : null;
    return (
      <div className="banner__hint" data-testid="failure-node">
        <p>
          <strong>The agent failed in node {failure.node}</strong>
          {where ? (
            <>
              {' '}
              at <code>{where}</code>
            </>
          ) : null}
          : {failure.errorMessage ?? ''}
        </p>
        {onSource ? (
          <button type="button" className="btn btn--small" onClick={() => onSource(failure)} data-testid="banner-go-to-source">
            Go to source
          </button>
        ) : null}
      </div>
    );
  }
  return null;
}

export function StatusBanner({
  status,
  reason,
  durationMs,
  recommendedCommand,
  question,
  onReply,
  failure,
  onEditResend,
  onSource,
}: {
  status: RunStatus;
  reason: string | null;
  durationMs: number | null;
  recommendedCommand: string | null;
  question?: string | null;
  onReply?: () => void;
  failure?: RunFailure | null;
  onEditResend?: () => void;
  onSource?: (f: RunFailure) => void;
}) {
  const tone =
    status === 'failed' ? 'danger' : status === 'input_required' || status === 'interrupted' ? 'warning' : status === 'completed' ? 'success' : 'info';
  return (
    <div className={`banner banner--${tone}`} data-testid="status-banner" data-status={status} data-reason={reason ?? ''}>
      <div className="banner__main">
        <StatusBadge status={status} />
        <span className="banner__text">
          {reason === 'breakpoint' ? 'The run paused at a breakpoint: Continue, Step or Stop it below.' : describe(status, durationMs)}
        </span>
        {reason ? (
          <p className="banner__reason" data-testid="status-reason">
            <strong>Reason: {reasonLabel(reason)}.</strong> {REASON_TEXT[reason] ?? ''}
          </p>
        ) : null}
        {status === 'failed' && failure ? <FailureHint failure={failure} onEditResend={onEditResend} onSource={onSource} /> : null}
        {question ? (
          <blockquote className="banner__question" data-testid="input-question">
            {question}
          </blockquote>
        ) : null}
        {reason === 'runtime_unavailable' && recommendedCommand ? (
          <div className="command" data-testid="recommended-command">
            <code>{recommendedCommand}</code>
            <CopyButton value={recommendedCommand} label="Copy command" testId="copy-command" />
          </div>
        ) : null}
      </div>
      {status === 'input_required' && onReply ? (
        <button type="button" className="btn btn--primary" onClick={onReply} data-testid="resume-run">
          Reply…
        </button>
      ) : null}
    </div>
  );
}
