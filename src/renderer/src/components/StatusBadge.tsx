// A run state badge (spec 3: eight states). Colour plus a distinct glyph plus the word, so
// it reads in any theme and without colour vision.
import type { RunStatus } from '../../../shared/playground.ts';

export const STATUS_LABEL: Record<RunStatus, string> = {
  queued: 'Queued',
  preparing: 'Preparing',
  running: 'Running',
  input_required: 'Input required',
  completed: 'Completed',
  failed: 'Failed',
  cancelled: 'Cancelled',
  interrupted: 'Interrupted',
};

const GLYPH: Record<RunStatus, string> = {
  queued: '◷',
  preparing: '◔',
  running: '▶',
  input_required: '?',
  completed: '✓',
  failed: '✕',
  cancelled: '⊘',
  interrupted: '↯',
};

/** Reasons of spec 3 in words; unknown reasons (clients must tolerate new ones) show as is. */
const REASON_LABEL: Record<string, string> = {
  runtime_unavailable: 'runtime unavailable',
  runtime_restarted: 'runtime restarted',
  project_validation: 'project validation',
  user_cancelled: 'cancelled by you',
  studio_shutdown: 'studio shut down',
};

export function reasonLabel(reason: string): string {
  return REASON_LABEL[reason] ?? reason.replace(/_/g, ' ');
}

export function statusLabel(status: string): string {
  return STATUS_LABEL[status as RunStatus] ?? status;
}

export function StatusBadge({ status, reason, compact = false }: { status: RunStatus; reason?: string | null; compact?: boolean }) {
  return (
    <span className={`badge badge--${status}${compact ? ' badge--compact' : ''}`} data-testid="status-badge" data-status={status}>
      <span className="badge__glyph" aria-hidden="true">
        {GLYPH[status] ?? '•'}
      </span>
      <span className="badge__label">{statusLabel(status)}</span>
      {reason ? (
        <span className="badge__reason" data-testid="status-badge-reason">
          · {reasonLabel(reason)}
        </span>
      ) : null}
    </span>
  );
}
