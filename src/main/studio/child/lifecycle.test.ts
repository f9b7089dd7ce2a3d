// The runtime child's lifecycle table: the transitions it lists happen, every other one is
// refused, and a stopped child never starts again.
import { describe, expect, it } from 'vitest';
import { ChildLifecycle, IllegalTransition, nextState, TRANSITIONS, type ChildEvent, type ChildState } from './lifecycle.ts';

const STATES = Object.keys(TRANSITIONS) as ChildState[];
const EVENTS: ChildEvent[] = ['spawn', 'ready', 'crash', 'restart', 'stop', 'stopped'];

/** A lifecycle brought to `state` through legal transitions only. */
function at(state: ChildState): ChildLifecycle {
  const paths: Record<ChildState, ChildEvent[]> = {
    idle: [],
    starting: ['spawn'],
    ready: ['spawn', 'ready'],
    restarting: ['spawn', 'ready', 'restart'],
    backoff: ['spawn', 'crash'],
    stopping: ['stop'],
    stopped: ['stop', 'stopped'],
  };
  const life = new ChildLifecycle();
  for (const e of paths[state]) life.apply(e);
  expect(life.state).toBe(state);
  return life;
}

describe('runtime child lifecycle', () => {
  for (const from of STATES) {
    for (const event of EVENTS) {
      const to = nextState(from, event);
      it(`${from} --${event}--> ${to ?? 'refused'}`, () => {
        const life = at(from);
        expect(life.can(event)).toBe(to !== null);
        if (to) expect(life.apply(event)).toBe(to);
        else {
          expect(() => life.apply(event)).toThrow(IllegalTransition);
          expect(life.state).toBe(from);
        }
      });
    }
  }

  it('a crash, a restart and a stop from every live state; nothing after stopped', () => {
    const life = new ChildLifecycle();
    const seen = [life.state];
    for (const e of ['spawn', 'crash', 'spawn', 'ready', 'restart', 'spawn', 'ready', 'crash', 'restart', 'stop', 'stopped'] as ChildEvent[])
      seen.push(life.apply(e));
    expect(seen).toEqual([
      'idle',
      'starting',
      'backoff',
      'starting',
      'ready',
      'restarting',
      'starting',
      'ready',
      'backoff',
      'restarting',
      'stopping',
      'stopped',
    ]);
    expect(life.halted).toBe(true);
    expect(EVENTS.filter((e) => life.can(e))).toEqual([]);
  });

  it('only a starting or ready child can crash: an exit while restarting or stopping was asked for', () => {
    expect(STATES.filter((s) => nextState(s, 'crash') !== null)).toEqual(['starting', 'ready']);
  });
});
