// spec 4.1 rule 5: every completed output is evaluated exactly once, in order, each evaluator
// under its own time limit; an evaluator's failure is an observation (evaluation.error) and
// never fails the answer.
import type { AgentRequest, AgentResponse } from '../../../sdk/state.ts';
import type { Generation } from '../project/registry.ts';

type Emit = (name: string, fields: Record<string, unknown>) => void;

export async function runEvaluators(
  gen: Generation,
  request: AgentRequest,
  response: AgentResponse,
  state: unknown,
  emit: Emit,
  signal: AbortSignal,
): Promise<void> {
  for (const { decl, run } of gen.project.evaluators) {
    const t0 = performance.now();
    const limit = decl.timeoutSeconds;
    // The evaluator sees one signal: the invocation's (a cancel) or its own time limit.
    const own = limit === null ? { signal, done: () => {} } : limitedSignal(signal, limit * 1000);
    try {
      const work = Promise.resolve().then(() => run({ request, response, state, signal: own.signal }));
      const result = await (limit === null ? work : Promise.race([work, timedOut(own.signal, limit)]));
      const score = typeof result?.score === 'number' && Number.isFinite(result.score) ? result.score : null;
      emit('evaluation.result', {
        evaluator: decl.name,
        score,
        ...(result?.reason !== undefined ? { reason: result.reason } : {}),
        ...(result?.passStatus !== undefined ? { passStatus: result.passStatus } : {}),
        ...((result?.scope ?? decl.scope) !== undefined ? { scope: result?.scope ?? decl.scope } : {}),
        ...((result?.node ?? decl.node) !== undefined ? { node: result?.node ?? decl.node } : {}),
        duration_ms: Math.round(performance.now() - t0),
      });
    } catch (err) {
      emit('evaluation.error', { evaluator: decl.name, error: (err as Error).message, duration_ms: Math.round(performance.now() - t0) });
    } finally {
      own.done();
    }
  }
}

/** `parent` or a time limit, whichever fires first, as AbortSignal.any([parent,
 * AbortSignal.timeout(ms)]) gives it (a TimeoutError DOMException as the reason), but with
 * its timer and listener gone as soon as the evaluator is done: AbortSignal.timeout keeps
 * each evaluator's timer, signal and closures alive for the whole limit, two a request. */
function limitedSignal(parent: AbortSignal, ms: number): { signal: AbortSignal; done: () => void } {
  const controller = new AbortController();
  const onAbort = () => controller.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  return {
    signal: controller.signal,
    done: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

/** Rejects when the evaluator's signal fires: with the time limit's message, or the cancel's reason. */
function timedOut(signal: AbortSignal, limit: number): Promise<never> {
  return new Promise((_, reject) => {
    const fail = () =>
      reject(signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError' ? new Error(`evaluator timed out after ${limit}s`) : signal.reason);
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}
