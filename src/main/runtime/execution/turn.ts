// execution/ owns running one turn, protocol-free: the steps of a turn and its one exit, the
// graph's input, the stream consumer, node spans, evaluators, and the mapping of whatever a
// turn throws to the spec 7.2 failure.
//
// One turn: one message in, one LangGraph invocation on the thread named by its contextId, as
// steps (start, input, stream, settle) with one exit. Every turn ends in exactly one outcome
// (completed, input-required, failed or canceled), and `invoke.end` is emitted in one place,
// the `finally` of runTurn (spec 6.3). The protocol binding (a2a/executor.ts) publishes what
// the turn reports through TurnEvents; nothing here knows the wire protocol.
import { AgentError } from '../../../sdk/errors.ts';
import { modelUsage } from '../../../sdk/usage.ts';
import type { CallSession } from '../../../sdk/call-record.ts';
import type { AgentResponse } from '../../../sdk/state.ts';
import { watchTurnCalls } from './calls.ts';
import type { Turn, TurnDeps, TurnEvents } from './turn-types.ts';
import { failureOf, sourceOf } from '../project/node-failures.ts';
import { CaptureBuffer, InvocationTracer } from '../observability/trace.ts';
import type { TranscriptMessage } from '../store/types.ts';
import { toAgentError } from './errors.ts';
import { StoreUnavailableError } from '../store/unavailable.ts';
import { consumeGraphStream, type StreamOutcome } from './graph-stream.ts';
import { runEvaluators } from './evaluators.ts';
import { SpanTracker } from './spans.ts';
import { prepareInput, validateContracts } from './input.ts';
import { TURN_TASK_CONFIG_KEY } from '../../../shared/thread-state.ts';
import { TRACE_HOOK_KEY } from '../../../sdk/trace-hook.ts';
import { PAUSE_DATA_KEY, type PausePoint } from '../../../shared/breakpoints.ts';
import { debugConfigurable, gatePause, interruptOptions, pausePoint, pauseText } from './breakpoints.ts';
import { continueInput } from './continue.ts';
import type { RunMeter } from './budget.ts';

export type { Turn, TurnDeps, TurnEvents } from './turn-types.ts';

/** How a turn ended: the fields of `invoke.end`, and what to publish once it is traced and
 * the transcript saved. */
interface Outcome {
  end: Record<string, unknown>;
  publish?: () => void;
}

/** A turn's running state, shared by its steps. */
interface TurnState {
  deps: TurnDeps;
  turn: Turn;
  events: TurnEvents;
  tracer: InvocationTracer;
  /** The turn's hook: node spans, branches and the nodes' trace events (spans.ts, D-106). */
  spans: SpanTracker;
  started: number;
  /** Milliseconds per node (STAGE_TIMING), filled while the graph runs (a failure reports it too). */
  latency: Record<string, number>;
  chunks: number;
  transcript: TranscriptMessage[];
  /** Stops reporting this thread's model calls (`model.call`) and closes its call session. */
  unwatch: () => void;
  /** The run's recorded-calls session, when it records or replays (D-91). */
  calls: CallSession | null;
  /** The turn's model usage, priced, against the manifest's budget (budget.ts). */
  meter: RunMeter;
}

export async function runTurn(deps: TurnDeps, turn: Turn, events: TurnEvents): Promise<void> {
  deps.stats.invocations += 1;
  const s = openTurn(deps, turn, events);
  let outcome: Outcome | null = null;
  try {
    outcome = await steps(s);
    // The last call went over the budget and the graph had nothing more to call: still over.
    if (s.meter.exceeded) outcome = unkept(s, outcome, s.meter.exceeded);
  } catch (err) {
    // A turn aborted with an AgentError (the runtime shutting down, a2a/executor.ts endAll; the
    // budget, budget.ts) fails with that error, whatever the abort made the graph throw.
    const reason: unknown = turn.signal.aborted ? turn.signal.reason : (s.meter.exceeded ?? undefined);
    outcome = turn.canceled() ? canceled(s) : failed(s, reason instanceof AgentError ? reason : err);
  } finally {
    // The thread's messages are written before the final status goes out, so a client that
    // reads them right after the answer (on any replica) sees this turn. A turn whose messages
    // the store did not take is not answered as a success (D-50): it fails store_unavailable.
    const lost = await saveTranscript(s);
    if (lost && outcome && !turn.canceled() && outcome.end.state !== 'failed') outcome = unkept(s, outcome, lost);
    s.unwatch();
    if (outcome) {
      if (turn.replay && s.calls) outcome.end.replay = { answered: s.calls.replayed, live: s.calls.live };
      if (s.calls?.mocked) outcome.end.mocked_calls = s.calls.mocked;
      s.tracer.emit('invoke.end', { ...outcome.end, ...s.meter.endFields() });
      await s.tracer.flush();
    }
    outcome?.publish?.();
  }
}

/** A completed or input-required turn whose transcript was not stored, or that went over its
 * budget, as the failure it is. */
function unkept(s: TurnState, outcome: Outcome, err: unknown): Outcome {
  if (outcome.end.state === 'completed') s.deps.stats.completed -= 1;
  if (outcome.end.state === 'input-required') s.deps.stats.input_required -= 1;
  return failed(s, err);
}

function openTurn(deps: TurnDeps, turn: Turn, events: TurnEvents): TurnState {
  const { settings, log } = deps;
  const capture = turn.captureToken && settings.captureUrl ? new CaptureBuffer(settings.captureUrl, turn.captureToken, log, turn.captureBatchMs) : null;
  const tracer = new InvocationTracer(
    deps.sinks,
    { task_id: turn.taskId, context_id: turn.contextId, agent_id: settings.agentId, generation: turn.gen.number, ...turn.labels },
    capture,
  );
  // Spans are described only when someone receives them (the studio, a NATS sink, the log
  // at debug): describing a node's update costs CPU on every request.
  const spansWanted = settings.nodeSpans && tracer.wants('span.end');
  const latency: Record<string, number> = {};
  // Recorded calls and model calls (priced, counted, and whole while recording): calls.ts.
  const { unwatch, meter, calls } = watchTurnCalls(settings, turn, tracer);
  const spans = new SpanTracker((name, fields) => tracer.emit(name, fields), turn.gen.project.dir, {
    enabled: spansWanted,
    values: tracer.wantsValues(),
    latency: settings.stageTiming ? latency : null,
    // Branches matter to their spans, to the model calls counted under them and to a run's
    // recorded calls; else fanOut enters no branch context (D-114).
    branches: spansWanted || tracer.wants('model.call') || calls !== null,
  });
  return { deps, turn, events, tracer, spans, started: performance.now(), latency, chunks: 0, transcript: [], unwatch, meter, calls };
}

async function steps(s: TurnState): Promise<Outcome> {
  const { turn, tracer } = s;
  s.events.started();
  tracer.emit('invoke.start', { message_id: turn.messageId, parts: turn.partKinds, user_id: turn.request.metadata.userId });
  validateContracts(turn.gen, turn.request);
  const emit = (name: string, fields: Record<string, unknown>) => tracer.emit(name, fields);
  // A continue (a paused run's Continue/Step, or a fork's run) runs the thread on from its
  // checkpoint: no new input, no new human turn (continue.ts).
  const continuing = turn.fromCheckpoint === true || turn.debug?.continue === true;
  const resumed = continuing ? await continueInput(turn.gen, turn.contextId, turn.debug?.paused_at, emit) : null;
  if (resumed?.request) turn.request = resumed.request;
  const input = resumed
    ? resumed.input
    : await prepareInput(s.deps, {
        request: turn.request,
        history: turn.history,
        contextId: turn.contextId,
        emit,
        transcript: s.transcript,
        signal: turn.signal,
      });
  const streamed = await streamGraph(s, input);
  const gate = streamed.interrupt ? await gatePause(turn.gen, turn.contextId, streamed.interrupt) : null;
  if (gate) return paused(s, gate);
  if (streamed.interrupt) return inputRequired(s, streamed.interrupt);
  const at = streamed.paused ? await pausePoint(turn.gen, turn.contextId, turn.debug, streamed.lastNode) : null;
  return at ? paused(s, at) : await completed(s, streamed);
}

async function streamGraph(s: TurnState, input: unknown): Promise<StreamOutcome> {
  const { turn, deps } = s;
  const { gen } = turn;
  // Token deltas only when the client can follow them: LangGraph's `messages` mode hooks
  // a callback into every runnable of the run, about 0.5 ms of CPU an invocation of the
  // example (D-15). A blocking message/send gets the final text from the exit node.
  // Node spans, branches and the nodes' trace events reach the turn's hook directly, from the
  // node wrappers and the SDK (spans.ts, node-spans.ts; D-106): no `tasks` stream mode.
  const modes = turn.streaming ? ['updates', 'messages', 'custom'] : ['updates', 'custom'];
  const stream = await gen.graph.stream(input, {
    // The task id goes into each checkpoint's metadata (store/turn-stamp.ts); the hook is read
    // by no checkpointer ("__"-prefixed keys stay out of LangGraph's metadata).
    configurable: {
      thread_id: turn.contextId,
      ...turn.configurable,
      [TURN_TASK_CONFIG_KEY]: turn.taskId,
      [TRACE_HOOK_KEY]: s.spans,
      ...debugConfigurable(turn.debug, gen),
    },
    streamMode: modes as ('updates' | 'messages' | 'custom')[],
    subgraphs: deps.settings.nodeSpans || !!turn.debug,
    // A budget stops the graph after the call that crossed it (budget.ts).
    signal: turn.gen.project.manifest.budget ? AbortSignal.any([turn.signal, s.meter.stop.signal]) : turn.signal,
    recursionLimit: gen.project.manifest.graph.recursionLimit,
    // Deployed: one checkpoint per invocation (and at an interrupt); per-step checkpoints
    // re-serialise the whole thread several times a turn. The studio's child checkpoints
    // every step, for the debugger (CHECKPOINT_DURABILITY, docs/performance.md).
    durability: deps.settings.checkpointDurability,
    // The studio's breakpoints (execution/breakpoints.ts); none for any other caller.
    ...interruptOptions(turn.debug, gen),
  });
  return consumeGraphStream(stream, {
    exitNode: gen.exitNode,
    emit: (name, fields) => s.tracer.emit(name, fields),
    onToken: (text) => {
      s.events.token(text, s.chunks > 0);
      s.chunks += 1;
    },
  });
}

function durationMs(s: TurnState): number {
  return Math.round(performance.now() - s.started);
}

function latencyField(s: TurnState): { latency?: Record<string, number> } {
  return s.deps.settings.stageTiming ? { latency: s.latency } : {};
}

function inputRequired(s: TurnState, interrupt: { value?: unknown }): Outcome {
  s.deps.stats.input_required += 1;
  const value = (interrupt.value ?? {}) as Record<string, unknown>;
  const question = typeof value.question === 'string' ? value.question : 'More input is needed to continue.';
  s.transcript.push({ role: 'ai', content: question }); // the thread's messages show what was asked
  return {
    end: { state: 'input-required', duration_ms: durationMs(s), ...latencyField(s) },
    publish: () => s.events.inputRequired(question, value),
  };
}

/** The graph stopped at a breakpoint: the task waits for input (a continue), like an interrupt,
 * and the answer's DataPart says where it paused. Nothing is added to the thread's messages. */
function paused(s: TurnState, at: PausePoint): Outcome {
  s.deps.stats.input_required += 1;
  return {
    end: { state: 'input-required', breakpoint: at, duration_ms: durationMs(s), ...latencyField(s) },
    publish: () => s.events.inputRequired(pauseText(at), { [PAUSE_DATA_KEY]: at }),
  };
}

async function completed(s: TurnState, streamed: StreamOutcome): Promise<Outcome> {
  const { turn, deps } = s;
  // One rule for message/send and message/stream: the response's text, else the exit
  // node's last AI message. Streamed chunks are only ever a preview of that answer.
  const { response, exitText } = streamed;
  const text = response?.text ?? exitText ?? '';
  if (!text && !response?.data) {
    throw new AgentError({
      code: 'INTERNAL_ERROR',
      reason: 'empty_response',
      message: `The exit node '${turn.gen.exitNode}' finished without an answer: return { response: { text } } (or response.data), or an AI message in messages.`,
    });
  }
  const finalResponse: AgentResponse = { ...response, text };
  if (finalResponse.text) s.transcript.push({ role: 'ai', content: finalResponse.text });
  await runEvaluators(
    turn.gen,
    turn.request,
    finalResponse,
    { request: turn.request, response: finalResponse },
    (name, fields) => s.tracer.emit(name, fields),
    turn.signal,
  );
  deps.stats.completed += 1;
  // cache_stats from the model's own callback (src/sdk/usage.ts), filed under this thread.
  const cacheStats = modelUsage().take(turn.contextId);
  return {
    end: { state: 'completed', duration_ms: durationMs(s), chunks: s.chunks, ...latencyField(s), ...(cacheStats ? { cache_stats: cacheStats } : {}) },
    publish: () => {
      if (!turn.canceled()) s.events.completed(finalResponse);
    },
  };
}

function canceled(s: TurnState): Outcome {
  s.spans.closeAll();
  return { end: { state: 'canceled', duration_ms: durationMs(s) } };
}

function isEmptyAnswer(err: unknown): boolean {
  return err instanceof AgentError && err.reason === 'empty_response';
}

function failed(s: TurnState, err: unknown): Outcome {
  const { turn, deps } = s;
  s.spans.failWith(err); // the failing node's span says why; the others were cut off
  // Which node failed and where (node-failures.ts): in the DataPart and the trace; the
  // stack only in the trace and the log, never to the client.
  const node = failureOf(err)?.node ?? (isEmptyAnswer(err) ? turn.gen.exitNode : undefined);
  const source = sourceOf(err, turn.gen.project.dir);
  const failure = toAgentError(err, { node, source });
  deps.stats.failed += 1;
  if (failure.code === 'INTERNAL_ERROR') deps.log.error({ err, task_id: turn.taskId, node, source }, 'invocation failed');
  const body = { ...failure.toDataPart(), ...(node ? { node } : {}), ...(source ? { source } : {}) };
  const end = {
    state: 'failed',
    ...(node ? { node } : {}),
    ...(source ? { source } : {}),
    ...(failure.code === 'INTERNAL_ERROR' && err instanceof Error && err.stack ? { stack: err.stack.split('\n').slice(0, 12).join('\n') } : {}),
    duration_ms: durationMs(s),
    errorCode: failure.code,
    errorReason: failure.reason,
    retriable: failure.retriable,
    ...(failure.domainCode ? { domainCode: failure.domainCode, domainTitle: failure.domainTitle } : {}),
    ...(failure.detail ? { detail: failure.detail } : {}),
    ...latencyField(s),
  };
  // spec 3: a failure after partial streaming discards the buffer (the artifact is
  // replaced) and ends the stream failed; the request is not re-run.
  return { end, publish: () => s.events.failed(failure, body) };
}

/** Appends the turn's messages to the thread; resolves to the store's outage when it did not
 * take them (store/unavailable.ts), else to null (another failure is logged, as before). */
async function saveTranscript(s: TurnState): Promise<StoreUnavailableError | null> {
  const { deps, turn } = s;
  if (!deps.memory.enabled || !s.transcript.length) return null;
  try {
    await deps.store.appendTranscript(deps.settings.agentId, turn.contextId, s.transcript, { turn: true });
    return null;
  } catch (err) {
    deps.log.warn({ err: (err as Error).message }, 'transcript not saved');
    return err instanceof StoreUnavailableError ? err : null;
  }
}
