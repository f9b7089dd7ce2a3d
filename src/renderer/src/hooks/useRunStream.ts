// Live view of one run: follows its event stream and folds the events into what the
// timeline shows. Events are applied in batches (one React update per ~50 ms) so a run
// streaming thousands of deltas stays smooth.
import { useEffect, useReducer, useRef } from 'react';
import { notifyManager, useQueryClient } from '@tanstack/react-query';
import { flushSync } from 'react-dom';
import type { PhaseName, PhaseState, RunEvent, RunStatus, TaggedPart } from '../../../shared/playground.ts';
import { isActive } from '../../../shared/playground.ts';
import type { RunEnd } from '../../../shared/spans.ts';
import { followRunEvents, type StreamConnection } from '../api/runEvents.ts';
import { applyRunStatus } from '../api/queries.ts';
import { useAnnouncer } from '../state/announcer.ts';

export const PHASES: readonly PhaseName[] = ['queue', 'prepare', 'invoke', 'complete'];

export interface PhaseInfo {
  state: PhaseState;
  ts: string;
  detail: Record<string, unknown>;
}

export type TraceRunEvent = Extract<RunEvent, { kind: 'trace' }>;
export type DiagnosticRunEvent = Extract<RunEvent, { kind: 'diagnostic' }>;

export interface RunStreamState {
  runId: string;
  lastSeq: number;
  /** Concatenated `output.delta` texts, in seq order, each applied once. */
  deltaText: string;
  deltaCount: number;
  phases: Partial<Record<PhaseName, PhaseInfo>>;
  status: RunStatus | null;
  reason: string | null;
  traces: TraceRunEvent[];
  diagnostics: DiagnosticRunEvent[];
  outputParts: TaggedPart[] | null;
  /** From a failed run.phase event with reason runtime_unavailable (spec 6.2). */
  recommendedCommand: string | null;
  connection: StreamConnection;
  connectionDetail?: string;
  firstTs: string | null;
}

/** How the run ended, for the span fold (shared/spans.ts): spans a run stored before the
 * closing rule left open end with it. Null while the run is active. */
export function runEndOf(state: Pick<RunStreamState, 'status' | 'phases'>): RunEnd | null {
  if (state.status === null || isActive(state.status)) return null;
  const at = state.phases.complete ? Date.parse(state.phases.complete.ts) : Number.NaN;
  return { status: state.status, ...(Number.isFinite(at) ? { at } : {}) };
}

type Action = { type: 'reset'; runId: string } | { type: 'events'; events: RunEvent[] } | { type: 'connection'; state: StreamConnection; detail?: string };

function initial(runId: string): RunStreamState {
  return {
    runId,
    lastSeq: 0,
    deltaText: '',
    deltaCount: 0,
    phases: {},
    status: null,
    reason: null,
    traces: [],
    diagnostics: [],
    outputParts: null,
    recommendedCommand: null,
    connection: 'connecting',
    firstTs: null,
  };
}

function apply(state: RunStreamState, events: RunEvent[]): RunStreamState {
  const next = { ...state, phases: { ...state.phases } };
  let deltas = '';
  const traces: TraceRunEvent[] = [];
  const diagnostics: DiagnosticRunEvent[] = [];
  for (const e of events) {
    if (e.seq <= next.lastSeq) continue; // dedupe by seq, whatever the transport did
    next.lastSeq = e.seq;
    next.firstTs ??= e.ts;
    switch (e.kind) {
      case 'output.delta':
        deltas += e.text ?? '';
        next.deltaCount += 1;
        break;
      case 'run.phase': {
        const { phase, state: phaseState, seq: _s, run_id: _r, kind: _k, ts, ...detail } = e;
        next.phases[phase] = { state: phaseState, ts, detail };
        if (typeof detail.recommended_run_command === 'string') next.recommendedCommand = detail.recommended_run_command;
        break;
      }
      case 'run.status':
        next.status = e.status;
        next.reason = e.reason ?? null;
        break;
      case 'run.output':
        next.outputParts = e.parts;
        break;
      case 'trace':
        traces.push(e);
        break;
      case 'diagnostic':
        diagnostics.push(e);
        break;
    }
  }
  if (deltas) next.deltaText = state.deltaText + deltas;
  if (traces.length) next.traces = [...state.traces, ...traces];
  if (diagnostics.length) next.diagnostics = [...state.diagnostics, ...diagnostics];
  return next;
}

function reducer(state: RunStreamState, action: Action): RunStreamState {
  switch (action.type) {
    case 'reset':
      return initial(action.runId);
    case 'events':
      return apply(state, action.events);
    case 'connection':
      return { ...state, connection: action.state, connectionDetail: action.detail };
  }
}

const PHASE_LABEL: Record<PhaseName, string> = { queue: 'Queue', prepare: 'Prepare', invoke: 'Invoke', complete: 'Complete' };

function phaseAnnouncement(e: Extract<RunEvent, { kind: 'run.phase' }>): string {
  const reason = typeof e.reason === 'string' ? `: ${e.reason.replace(/_/g, ' ')}` : '';
  // The complete phase carries the run's final state: say that rather than "complete completed".
  if (e.phase === 'complete' && typeof e.status === 'string') return `Run ${e.status.replace(/_/g, ' ')}${reason}`;
  return `${PHASE_LABEL[e.phase] ?? e.phase} ${e.state}${reason}`;
}

const FLUSH_MS = 50;

/** Follows a run's events; with no run (null) it follows nothing. */
export function useRunStream(runId: string | null): RunStreamState {
  const [state, dispatch] = useReducer(reducer, runId ?? '', initial);
  const qc = useQueryClient();
  const announce = useAnnouncer((s) => s.announce);
  const buffer = useRef<RunEvent[]>([]);

  useEffect(() => {
    dispatch({ type: 'reset', runId: runId ?? '' });
    buffer.current = [];
    if (!runId) return;
    const controller = new AbortController();
    // Replayed history is not news: only phase events that happen while we watch are announced.
    const mountedAt = Date.now() - 1000;
    let timer: ReturnType<typeof setTimeout> | null = null;

    const flush = () => {
      timer = null;
      const events = buffer.current;
      buffer.current = [];
      if (events.length === 0) return;
      // The run's status reaches the screen twice: in this hook's state (the run view) and in
      // the query cache (the composer's Send, the sidebar's run list). Both are written in one
      // notification batch and rendered in one synchronous pass, so no frame shows the run
      // ended in one place and still running in another.
      notifyManager.batch(() => {
        for (const e of events) {
          if (e.kind === 'run.phase' && Date.parse(e.ts) >= mountedAt) announce(phaseAnnouncement(e));
          if (e.kind === 'run.status') applyRunStatus(qc, runId, e.status, e.reason ?? null);
        }
        notifyManager.schedule(() => flushSync(() => dispatch({ type: 'events', events })));
      });
    };

    void followRunEvents({
      runId,
      signal: controller.signal,
      onEvent: (e) => {
        buffer.current.push(e);
        timer ??= setTimeout(flush, FLUSH_MS);
      },
      onConnection: (s, detail) => {
        if (s === 'ended' || s === 'failed') {
          if (timer) clearTimeout(timer);
          flush();
        }
        dispatch({ type: 'connection', state: s, detail });
      },
    });
    return () => {
      controller.abort();
      if (timer) clearTimeout(timer);
    };
  }, [runId, qc, announce]);

  return state;
}
