// The run lifecycle: the eight run states of spec 3 and every transition between them.
// The spec leaves the transitions "not shown"; RUN_TRANSITIONS is the documented choice
// (docs/playground-api.md, "Run states and reasons", shows this same table).
//
// A run is created `queued` (create, resume and rerun alike) and moves only through this
// table: `transition` is the one function that applies it, and it refuses every pair the
// table does not list. The five terminal states have no outgoing transition, so an event
// that arrives after a run ended (a late trace, the end of an aborted stream, a cancel
// racing the agent's answer) changes nothing.
import type { RunReason, RunStatus } from '../../../shared/playground.ts';

/** What moves a run: the executor's own steps, the agent's answer, the user, the studio. */
export const RUN_EVENTS = [
  'start',
  'invoke',
  'agent_completed',
  'agent_input_required',
  'agent_breakpoint',
  'agent_failed',
  'agent_rejected',
  'agent_auth_required',
  'agent_cancelled',
  'stream_failed',
  'runtime_exited',
  'runtime_unavailable',
  'validation_failed',
  'cancel',
  'shutdown',
  'internal_error',
] as const;
export type RunEvent = (typeof RUN_EVENTS)[number];

export interface Transition {
  readonly from: RunStatus;
  readonly event: RunEvent;
  readonly to: RunStatus;
  /** The `reason` the run ends with (null: none). */
  readonly reason: RunReason | null;
}

/** spec 3: a new run, a resumed child run and a rerun all start here. */
export const INITIAL_RUN_STATE = 'queued' satisfies RunStatus;

/** Every legal transition, one row each (docs/playground-api.md shows the same rows). */
export const RUN_TRANSITIONS = [
  { from: 'queued', event: 'start', to: 'preparing', reason: null },
  { from: 'preparing', event: 'invoke', to: 'running', reason: null },
  { from: 'running', event: 'agent_completed', to: 'completed', reason: null },
  { from: 'running', event: 'agent_input_required', to: 'input_required', reason: null },
  { from: 'running', event: 'agent_breakpoint', to: 'input_required', reason: 'breakpoint' },
  { from: 'running', event: 'agent_failed', to: 'failed', reason: 'agent_error' },
  { from: 'running', event: 'agent_rejected', to: 'failed', reason: 'agent_rejected' },
  { from: 'running', event: 'agent_auth_required', to: 'failed', reason: 'auth_required' },
  { from: 'running', event: 'agent_cancelled', to: 'cancelled', reason: 'runtime_cancelled' },
  { from: 'running', event: 'stream_failed', to: 'failed', reason: 'runtime_error' },
  { from: 'running', event: 'runtime_exited', to: 'interrupted', reason: 'runtime_restarted' },
  { from: 'preparing', event: 'runtime_unavailable', to: 'failed', reason: 'runtime_unavailable' },
  { from: 'running', event: 'runtime_unavailable', to: 'failed', reason: 'runtime_unavailable' },
  { from: 'preparing', event: 'validation_failed', to: 'failed', reason: 'project_validation' },
  { from: 'running', event: 'validation_failed', to: 'failed', reason: 'project_validation' },
  { from: 'queued', event: 'cancel', to: 'cancelled', reason: 'user_cancelled' },
  { from: 'preparing', event: 'cancel', to: 'cancelled', reason: 'user_cancelled' },
  { from: 'running', event: 'cancel', to: 'cancelled', reason: 'user_cancelled' },
  { from: 'queued', event: 'shutdown', to: 'interrupted', reason: 'studio_shutdown' },
  { from: 'preparing', event: 'shutdown', to: 'interrupted', reason: 'studio_shutdown' },
  { from: 'running', event: 'shutdown', to: 'interrupted', reason: 'studio_shutdown' },
  { from: 'queued', event: 'internal_error', to: 'failed', reason: 'internal_error' },
  { from: 'preparing', event: 'internal_error', to: 'failed', reason: 'internal_error' },
  { from: 'running', event: 'internal_error', to: 'failed', reason: 'internal_error' },
] as const satisfies readonly Transition[];

type Row = (typeof RUN_TRANSITIONS)[number];

/** The events the table allows from state S (never for a terminal state). */
export type EventFrom<S extends RunStatus> = Extract<Row, { from: S }>['event'];
/** The events that move a run to another active state. */
export type AdvanceEvent = Extract<Row, { to: 'preparing' | 'running' }>['event'];
/** The events that end a run. */
export type EndEvent = Extract<Row, { to: 'completed' | 'input_required' | 'failed' | 'cancelled' | 'interrupted' }>['event'];

/** The transition the table gives for (from, event), or null: the pair is illegal. */
export function transition(from: RunStatus, event: RunEvent): Transition | null {
  return RUN_TRANSITIONS.find((t) => t.from === from && t.event === event) ?? null;
}

/** True for the five states with no way out. */
export function isTerminal(state: RunStatus): boolean {
  return !RUN_TRANSITIONS.some((t) => t.from === state);
}

/** One run's current state. `fire` applies the table; a refused event changes nothing. */
export class RunLifecycle {
  constructor(private current: RunStatus = INITIAL_RUN_STATE) {}

  get state(): RunStatus {
    return this.current;
  }

  /** True once the run is in a terminal state. */
  get ended(): boolean {
    return isTerminal(this.current);
  }

  /** Moves the run along the table: answers the transition taken, or null when the table
   * has no row for (state, event), which leaves the state as it was. */
  fire(event: RunEvent): Transition | null {
    const t = transition(this.current, event);
    if (t) this.current = t.to;
    return t;
  }
}
