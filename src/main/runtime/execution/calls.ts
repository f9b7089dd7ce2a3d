// A turn's model calls and recorded calls (docs/runtime-traces.md, "Model calls" and
// "Recorded calls"; D-91, D-93): `model.call` events from the usage callback every model of
// createChatModel carries, and the run's call session, which numbers every call for a
// replay and answers them from the recording when the studio replays a run.
import { openCallSession, type CallSession } from '../../../sdk/call-record.ts';
import { modelUsage } from '../../../sdk/usage.ts';
import type { RuntimeSettings } from '../config.ts';
import type { InvocationTracer } from '../observability/trace.ts';
import { modelCallFields } from '../observability/trace-value.ts';
import type { ReplayPlan } from '../../../shared/recordings.ts';
import type { MockPlan } from '../../../shared/mocks.ts';

/** A studio run records every call; elsewhere RECORD_CALLS records every run, a share of them,
 * or none. A replayed run is answered from its plan. */
export function watchCalls(
  settings: Pick<RuntimeSettings, 'traceModelContent'> & Partial<Pick<RuntimeSettings, 'recordCalls'>>,
  turn: { contextId: string; replay?: ReplayPlan | null; mocks?: MockPlan | null },
  tracer: InvocationTracer,
): { unwatch: () => void; calls: CallSession | null } {
  const share = settings.recordCalls ?? 0;
  const record = tracer.capturing() || (share > 0 && (share >= 1 || Math.random() < share));
  // A session's tool mocks answer matching calls first (call-mocks.ts, D-102).
  const mocks = turn.mocks?.mocks.length ? turn.mocks.mocks : null;
  const opened =
    record || turn.replay || mocks ? openCallSession(turn.contextId, { record, replay: turn.replay ?? null, mocks, emit: (n, f) => tracer.emit(n, f) }) : null;
  // Model calls of createChatModel's models (src/sdk/usage.ts), only when someone keeps them.
  const content = settings.traceModelContent || record;
  const unwatchModel = tracer.wants('model.call')
    ? modelUsage().watch(turn.contextId, { content, onCall: (c) => tracer.emit('model.call', modelCallFields(c)) })
    : () => {};
  return {
    unwatch: () => {
      unwatchModel();
      opened?.close();
    },
    calls: opened?.session ?? null,
  };
}
