import { describe, expect, it } from 'vitest';
import type { Generation } from '../project/registry.ts';
import { interruptOptions } from './breakpoints.ts';

const gen = { graph: { nodes: { __start__: {}, guardrail: {}, router: {}, skills: {}, respond: {} } } } as unknown as Generation;
const control = (breakpoints: { node: string; when: 'before' | 'after' }[], step = false) => ({ breakpoints, step, continue: false });

describe('breakpoints as LangGraph interrupts', () => {
  it('passes the top graph’s nodes only, each once, and nothing without a debug control', () => {
    expect(interruptOptions(null, gen)).toEqual({});
    expect(
      interruptOptions(
        control([
          { node: 'router', when: 'before' },
          { node: 'router', when: 'before' },
          { node: 'skills[refund]', when: 'before' },
          { node: 'gone', when: 'after' },
          { node: 'respond', when: 'after' },
        ]),
        gen,
      ),
    ).toEqual({ interruptBefore: ['router'], interruptAfter: ['respond'] });
    expect(interruptOptions(control([{ node: 'gone', when: 'before' }]), gen)).toEqual({});
  });

  it('pauses before every node in step mode', () => {
    expect(interruptOptions(control([{ node: 'respond', when: 'after' }], true), gen)).toEqual({ interruptBefore: '*', interruptAfter: ['respond'] });
    // A session's breakpoint on every node (`*` before) is step mode too.
    expect(interruptOptions(control([{ node: '*', when: 'before' }]), gen)).toEqual({ interruptBefore: '*' });
  });
});
