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

export function StatusBanner({
  status,
  reason,
  durationMs,
  recommendedCommand,
  question,
  onReply,
}: {
  status: RunStatus;
  reason: string | null;
  durationMs: number | null;
  recommendedCommand: string | null;
  question?: string | null;
  onReply?: () => void;
}) {
  const tone = status === 'failed' ? 'danger' : status === 'input_required' || status === 'interrupted' ? 'warning' : status === 'completed' ? 'success' : 'info';
  return (
    <div className={`banner banner--${tone}`} data-testid="status-banner" data-status={status} data-reason={reason ?? ''}>
      <div className="banner__main">
        <StatusBadge status={status} />
        <span className="banner__text">{describe(status, durationMs)}</span>
        {reason ? (
          <p className="banner__reason" data-testid="status-reason">
            <strong>Reason: {reasonLabel(reason)}.</strong> {REASON_TEXT[reason] ?? ''}
          </p>
        ) : null}
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
