// The runtime child's lifecycle: one transitions table and one function that applies it.
// The supervisor changes the state only through `apply`, so a transition the table does not
// list cannot happen; the table is the one docs/architecture.md shows.

import type { RuntimeChildState } from '../../../shared/studio-api.ts';

export type ChildState = RuntimeChildState;

/** spawn: a child process is started. ready: it printed its ready line. crash: it exited (or
 * could not be spawned) without being asked to. restart: the studio replaces it (changed
 * files). stop: the studio stops it for good. stopped: it is gone. */
export type ChildEvent = 'spawn' | 'ready' | 'crash' | 'restart' | 'stop' | 'stopped';

export const TRANSITIONS = {
  idle: { spawn: 'starting', restart: 'restarting', stop: 'stopping' },
  starting: { ready: 'ready', crash: 'backoff', restart: 'restarting', stop: 'stopping' },
  ready: { crash: 'backoff', restart: 'restarting', stop: 'stopping' },
  /** The previous child is being terminated; the next one is spawned once it is gone. */
  restarting: { spawn: 'starting', stop: 'stopping' },
  /** Waiting out the restart delay after a crash. */
  backoff: { spawn: 'starting', restart: 'restarting', stop: 'stopping' },
  stopping: { stopped: 'stopped' },
  stopped: {},
} as const satisfies Record<ChildState, Partial<Record<ChildEvent, ChildState>>>;

export class IllegalTransition extends Error {
  override readonly name = 'IllegalTransition';
  constructor(
    readonly from: ChildState,
    readonly event: ChildEvent,
  ) {
    super(`the runtime child cannot '${event}' while ${from}`);
  }
}

/** The state `event` leads to from `from`, or null when the table does not allow it. */
export function nextState(from: ChildState, event: ChildEvent): ChildState | null {
  const row: Partial<Record<ChildEvent, ChildState>> = TRANSITIONS[from];
  return row[event] ?? null;
}

/** The current state of one supervised child, changed only through the table. */
export class ChildLifecycle {
  private current: ChildState = 'idle';

  get state(): ChildState {
    return this.current;
  }

  can(event: ChildEvent): boolean {
    return nextState(this.current, event) !== null;
  }

  /** Applies `event`; throws IllegalTransition when the table does not allow it. */
  apply(event: ChildEvent): ChildState {
    const next = nextState(this.current, event);
    if (next === null) throw new IllegalTransition(this.current, event);
    this.current = next;
    return next;
  }

  /** Stopping or stopped: nothing starts again. */
  get halted(): boolean {
    return this.current === 'stopping' || this.current === 'stopped';
  }
}
