// The composer's 409 banner (spec 4.3 rule 2, 7.3): another run holds the project's single
// active slot; it offers to open that run.
import { useUi, type RunConflict } from '../../state/ui.ts';

export function ConflictBanner({ conflict, sessionId, onDismiss }: { conflict: RunConflict; sessionId: string | undefined; onDismiss: () => void }) {
  const selectRun = useUi((s) => s.selectRun);
  return (
    <div className="banner banner--warning" role="alert" data-testid="conflict-banner" data-active-run-id={conflict.activeRunId}>
      <div>
        <strong>Another run is active (409).</strong> Only one run can be active in a project at a time: run <code>{conflict.activeRunId}</code> is still going.
        Send works again when it ends.
      </div>
      <div className="banner__actions">
        {sessionId ? (
          <button type="button" className="btn btn--small" onClick={() => selectRun(sessionId, conflict.activeRunId)} data-testid="conflict-open-run">
            Open that run
          </button>
        ) : null}
        <button type="button" className="btn btn--small btn--ghost" onClick={onDismiss} data-testid="conflict-dismiss">
          Dismiss
        </button>
      </div>
    </div>
  );
}
