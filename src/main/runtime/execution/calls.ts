// A turn's recorded calls (docs/runtime-traces.md, "Recorded calls"; D-91, D-93): the run's
// call session, which numbers every call for a replay and answers them from the recording when
// the studio replays a run. The `model.call` events themselves come from the usage callback
// (budget.ts watchModelCalls), with the messages kept whole while the run records.
import { openCallSession, type CallSession } from '../../../sdk/call-record.ts';
import type { RuntimeSettings } from '../config.ts';
import type { InvocationTracer } from '../observability/trace.ts';
import type { ReplayPlan } from '../../../shared/recordings.ts';
import type { MockPlan } from '../../../shared/mocks.ts';
import type { Manifest } from '../project/manifest.ts';
import { watchModelCalls, type RunMeter } from './budget.ts';

/** A studio run records every call; elsewhere RECORD_CALLS records every run, a share of them,
 * or none. A replayed run is answered from its plan. */
export function openCalls(
  settings: Partial<Pick<RuntimeSettings, 'recordCalls'>>,
  turn: { contextId: string; replay?: ReplayPlan | null; mocks?: MockPlan | null },
  tracer: InvocationTracer,
): { calls: CallSession | null; record: boolean; close: () => void } {
  const share = settings.recordCalls ?? 0;
  const record = tracer.capturing() || (share > 0 && (share >= 1 || Math.random() < share));
  // A session's tool mocks answer matching calls first (call-mocks.ts, D-102).
  const mocks = turn.mocks?.mocks.length ? turn.mocks.mocks : null;
  const opened =
    record || turn.replay || mocks ? openCallSession(turn.contextId, { record, replay: turn.replay ?? null, mocks, emit: (n, f) => tracer.emit(n, f) }) : null;
  return { calls: opened?.session ?? null, record, close: () => opened?.close() };
}

export type TurnCallSettings = Partial<Pick<RuntimeSettings, 'recordCalls'>>;

/** The turn's call session, then its model calls (src/sdk/usage.ts), priced and counted against
 * the budget (budget.ts), with their messages while the run records. */
export function watchTurnCalls(
  settings: TurnCallSettings & Pick<RuntimeSettings, 'traceModelContent'>,
  turn: { contextId: string; replay?: ReplayPlan | null; gen: { project: { manifest: Manifest } } },
  tracer: InvocationTracer,
): { unwatch: () => void; meter: RunMeter; calls: CallSession | null } {
  const recorded = openCalls(settings, turn, tracer);
  const watched = watchModelCalls(turn.gen.project.manifest, turn.contextId, tracer, settings.traceModelContent || recorded.record);
  return {
    unwatch: () => {
      watched.unwatch();
      recorded.close();
    },
    meter: watched.meter,
    calls: recorded.calls,
  };
}
