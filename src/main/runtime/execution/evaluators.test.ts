// Evaluators run in order, each under its own time limit; a limit or a cancel reaches the
// evaluator's signal with the reason it would get from AbortSignal.timeout/any, and nothing
// of an evaluator (its timer, its listener on the invocation's signal) outlives it.
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runEvaluators } from './evaluators.ts';
import type { Generation } from '../project/registry.ts';

type Run = (ctx: { signal: AbortSignal }) => unknown;

function generation(evaluators: Array<{ name: string; timeoutSeconds: number | null; run: Run }>): Generation {
  return { project: { evaluators: evaluators.map(({ run, ...decl }) => ({ decl, run })) } } as unknown as Generation;
}

async function evaluate(gen: Generation, signal = new AbortController().signal) {
  const events: Array<{ name: string } & Record<string, unknown>> = [];
  const request = { text: 'hi', data: [], files: [], metadata: {}, contextId: 'c', taskId: 't' };
  await runEvaluators(gen, request, { text: 'ok' }, {}, (name, fields) => void events.push({ name, ...fields }), signal);
  return events;
}

describe('runEvaluators', () => {
  it('scores in order, reports a time limit as an error, and aborts the late evaluator with a TimeoutError', async () => {
    let reason: unknown;
    const gen = generation([
      { name: 'quick', timeoutSeconds: 5, run: () => ({ score: 1 }) },
      {
        name: 'slow',
        timeoutSeconds: 0.05,
        run: ({ signal }) =>
          new Promise((resolve) =>
            signal.addEventListener('abort', () => {
              reason = signal.reason;
              resolve({ score: 0 });
            }),
          ),
      },
      { name: 'unlimited', timeoutSeconds: null, run: () => ({ score: 0.5 }) },
    ]);
    const parent = new AbortController();
    const events = await evaluate(gen, parent.signal);
    expect(events.map((e) => [e.name, e.evaluator, e.score ?? e.error])).toEqual([
      ['evaluation.result', 'quick', 1],
      ['evaluation.error', 'slow', 'evaluator timed out after 0.05s'],
      ['evaluation.result', 'unlimited', 0.5],
    ]);
    expect(reason).toBeInstanceOf(DOMException);
    expect((reason as DOMException).name).toBe('TimeoutError');
    // No evaluator left a listener on the invocation's signal.
    expect(getEventListeners(parent.signal, 'abort')).toHaveLength(0);
  });

  it('passes a cancel of the invocation to the running evaluator, with the cancel as its reason', async () => {
    const parent = new AbortController();
    const cancel = new Error('task canceled');
    let reason: unknown;
    const gen = generation([
      {
        name: 'waits',
        timeoutSeconds: 10,
        run: ({ signal }) => {
          setImmediate(() => parent.abort(cancel));
          return new Promise((_, reject) =>
            signal.addEventListener('abort', () => {
              reason = signal.reason;
              reject(signal.reason);
            }),
          );
        },
      },
    ]);
    const events = await evaluate(gen, parent.signal);
    expect(reason).toBe(cancel);
    expect(events).toMatchObject([{ name: 'evaluation.error', evaluator: 'waits', error: 'task canceled' }]);
  });

  it('takes a limit that is not a whole number of milliseconds (1.1 s)', async () => {
    // 1.1 * 1000 is 1100.0000000000002 milliseconds.
    const events = await evaluate(generation([{ name: 'fine', timeoutSeconds: 1.1, run: () => ({ score: 1 }) }]));
    expect(events).toMatchObject([{ name: 'evaluation.result', evaluator: 'fine', score: 1 }]);
  });

  it("hands an already cancelled invocation's signal to the evaluator aborted", async () => {
    const parent = new AbortController();
    parent.abort(new Error('gone'));
    let aborted: boolean | undefined;
    await evaluate(generation([{ name: 'sees', timeoutSeconds: 1, run: ({ signal }) => ((aborted = signal.aborted), { score: 1 }) }]), parent.signal);
    expect(aborted).toBe(true);
  });
});
