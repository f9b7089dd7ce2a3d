// The run's phases (spec 6.2 run.phase: queue, prepare, invoke, complete) as a stepper.
import type { PhaseName, RunStatus } from '../../../../shared/playground.ts';
import { isActive } from '../../../../shared/playground.ts';
import { PHASES, type PhaseInfo } from '../../hooks/useRunStream.ts';
import { formatDuration } from '../../lib/format.ts';

const LABEL: Record<PhaseName, string> = { queue: 'Queue', prepare: 'Prepare', invoke: 'Invoke', complete: 'Complete' };
const HINT: Record<PhaseName, string> = {
  queue: 'waits for its turn',
  prepare: 'applies changes, validates',
  invoke: 'runs the agent',
  complete: 'stores the result',
};

type StepState = 'pending' | 'started' | 'completed' | 'failed' | 'skipped' | 'stopped';

function durationOf(info: PhaseInfo | undefined): number | null {
  const d = info?.detail.duration_ms;
  return typeof d === 'number' ? d : null;
}

/** The run status a `complete` phase event carries when the run was stopped, not failed. */
function stoppedStatus(info: PhaseInfo | undefined): 'cancelled' | 'interrupted' | null {
  const status = info?.detail.status;
  return status === 'cancelled' || status === 'interrupted' ? status : null;
}

export function PhaseStepper({ phases, status }: { phases: Partial<Record<PhaseName, PhaseInfo>>; status: RunStatus | null }) {
  const ended = status !== null && !isActive(status);
  return (
    <ol className="stepper" aria-label="Run phases" data-testid="phase-stepper">
      {PHASES.map((name) => {
        const info = phases[name];
        let state: StepState = info?.state ?? 'pending';
        // A run that ended while a phase was open (cancel, restart) stopped there.
        if (ended && state === 'started') state = 'stopped';
        // The complete phase of a run that was cancelled or interrupted is stored `failed`
        // (spec 6.2 phase states) with the run's status: it shows that status, not a failure.
        const stoppedAs = name === 'complete' ? stoppedStatus(info) : null;
        if (stoppedAs) state = 'stopped';
        const notReached = ended && state === 'pending';
        const ms = durationOf(info);
        return (
          <li
            key={name}
            className={`step step--${state}`}
            data-testid={`phase-${name}`}
            data-state={state}
            data-status={stoppedAs ?? undefined}
            aria-current={state === 'started' ? 'step' : undefined}
          >
            <span className="step__dot" aria-hidden="true">
              {state === 'completed' ? '✓' : state === 'failed' ? '✕' : state === 'skipped' ? '–' : state === 'stopped' ? '■' : ''}
            </span>
            <span className="step__text">
              <span className="step__label">{LABEL[name]}</span>
              <span className="step__state">
                {notReached ? 'not reached' : state === 'pending' ? HINT[name] : (stoppedAs ?? state)}
                {ms !== null ? ` · ${formatDuration(ms)}` : ''}
              </span>
            </span>
          </li>
        );
      })}
    </ol>
  );
}
