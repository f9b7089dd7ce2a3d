import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ACTIVE_STATES, RUN_STATES, TERMINAL_STATES, type RunStatus } from '../../../shared/playground.ts';
import { INITIAL_RUN_STATE, RUN_EVENTS, RUN_TRANSITIONS, RunLifecycle, isTerminal, transition, type EventFrom } from './lifecycle.ts';

/** A lifecycle placed in `state` by following the table from `queued`. */
function reach(state: RunStatus): RunLifecycle {
  const lc = new RunLifecycle();
  const path: Record<RunStatus, string[]> = {
    queued: [],
    preparing: ['start'],
    running: ['start', 'invoke'],
    completed: ['start', 'invoke', 'agent_completed'],
    input_required: ['start', 'invoke', 'agent_input_required'],
    failed: ['start', 'invoke', 'stream_failed'],
    cancelled: ['cancel'],
    interrupted: ['shutdown'],
  };
  for (const event of path[state]) expect(lc.fire(event as never)).not.toBeNull();
  expect(lc.state).toBe(state);
  return lc;
}

describe('run lifecycle (spec 3, docs/playground-api.md)', () => {
  it('starts every run queued', () => {
    expect(INITIAL_RUN_STATE).toBe('queued');
    expect(new RunLifecycle().state).toBe('queued');
  });

  it('lists each (from, event) pair once, between the eight states of spec 3', () => {
    const pairs = RUN_TRANSITIONS.map((t) => `${t.from} ${t.event}`);
    expect(new Set(pairs).size).toBe(pairs.length);
    for (const t of RUN_TRANSITIONS) {
      expect(RUN_STATES).toContain(t.from);
      expect(RUN_STATES).toContain(t.to);
      expect(RUN_EVENTS).toContain(t.event);
    }
    for (const event of RUN_EVENTS) expect(RUN_TRANSITIONS.some((t) => t.event === event)).toBe(true);
  });

  it('agrees with the shared active and terminal states', () => {
    for (const s of ACTIVE_STATES) expect(isTerminal(s)).toBe(false);
    for (const s of TERMINAL_STATES) expect(isTerminal(s)).toBe(true);
  });

  it.each(RUN_TRANSITIONS.map((t) => [t.from, t.event, t.to, t.reason] as const))('%s --%s--> %s (reason %s)', (from, event, to, reason) => {
    const lc = reach(from);
    const t = lc.fire(event);
    expect(t).toEqual({ from, event, to, reason });
    expect(lc.state).toBe(to);
  });

  it.each([
    ['queued', 'invoke'],
    ['queued', 'agent_completed'],
    ['queued', 'runtime_exited'],
    ['queued', 'validation_failed'],
    ['preparing', 'start'],
    ['preparing', 'agent_completed'],
    ['preparing', 'runtime_exited'],
    ['running', 'start'],
    ['running', 'invoke'],
  ] as const)('refuses %s --%s-->, leaving the state as it was', (from, event) => {
    const lc = reach(from);
    expect(lc.fire(event)).toBeNull();
    expect(transition(from, event)).toBeNull();
    expect(lc.state).toBe(from);
  });

  it.each(TERMINAL_STATES.map((s) => [s]))('keeps %s final: every event is refused', (state) => {
    const lc = reach(state);
    for (const event of RUN_EVENTS) {
      expect(lc.fire(event)).toBeNull();
      expect(lc.state).toBe(state);
    }
    expect(lc.ended).toBe(true);
  });

  it('ends a run once: the second end of a race is refused', () => {
    const lc = reach('running');
    expect(lc.fire('cancel')?.to).toBe('cancelled');
    expect(lc.fire('agent_completed')).toBeNull();
    expect(lc.fire('runtime_exited')).toBeNull();
    expect(lc.state).toBe('cancelled');
  });

  it('types the events of a terminal state as none', () => {
    const none: [EventFrom<'completed'>] extends [never] ? true : false = true;
    const queued: EventFrom<'queued'>[] = ['start', 'cancel', 'shutdown', 'internal_error'];
    expect(none).toBe(true);
    expect(queued.every((e) => transition('queued', e))).toBe(true);
  });

  it('is the table docs/playground-api.md shows', () => {
    const doc = fs.readFileSync(path.join(import.meta.dirname, '../../../../docs/playground-api.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Run states and reasons'));
    const rows = section
      .split('\n')
      .filter((l) => /^\| `\w+` \| `\w+` \| `\w+` \| /.test(l))
      .map((l) =>
        l
          .split('|')
          .slice(1, 5)
          .map((c) => c.trim().replaceAll('`', '')),
      );
    expect(rows).toEqual(RUN_TRANSITIONS.map((t) => [t.from, t.event, t.to, t.reason ?? '-']));
  });
});
