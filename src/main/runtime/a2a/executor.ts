// The A2A executor: one A2A message <-> one LangGraph invocation on the thread named by
// contextId. Streams the exit node's text, turns interrupts into input_required, errors
// into failed with the spec 7.2 DataPart, and runs evaluators on completed answers. The
// pieces live beside it: a2a-mapping.ts (parts in and out), memory-window.ts (what the
// working state keeps), graph-stream.ts (the stream consumer), evaluators.ts, src/sdk/usage.ts.
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { Message, Part, Task, TaskState } from '@a2a-js/sdk';
import { Command } from '@langchain/langgraph';
import type { BaseCheckpointSaver, CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { HumanMessage, type BaseMessage, type RemoveMessage } from '@langchain/core/messages';
import type { Logger } from 'pino';
import { AgentError } from '../../../sdk/errors.ts';
import type { AgentRequest, AgentResponse } from '../../../sdk/state.ts';
import type { RuntimeSettings } from '../config.ts';
import type { Generation, Registry } from '../project/registry.ts';
import { toAgentError } from '../execution/errors.ts';
import { CaptureBuffer, InvocationTracer, type TraceSink } from '../observability/trace.ts';
import type { RequestMeta, RequestMetaStore } from './request-meta.ts';
import type { MemoryStore, TranscriptMessage } from '../store/types.ts';
import type { MemoryConfig } from '../project/registry.ts';
import { planFold, SUMMARY_KEY, type Summarizer } from '../memory/fold.ts';
import { OBSERVATION_LABEL_KEYS } from './request-meta.ts';
import { agentMessage, applyDefaultSchema, ARTIFACT_ID, artifactName, historySeed, requestFromMessage, responseParts, toTranscript } from './mapping.ts';
import { boundWorkingMemory, capHistory, capInput } from '../memory/window.ts';
import { consumeGraphStream } from '../execution/graph-stream.ts';
import { runEvaluators } from '../execution/evaluators.ts';
import { modelUsage } from '../../../sdk/usage.ts';
import { SpanTracker } from '../execution/spans.ts';
import { failureOf, sourceOf } from '../project/node-failures.ts';
import { contractProblemsText, describeContractErrors } from '../../../shared/contracts.ts';

function isEmptyAnswer(err: unknown): boolean {
  return err instanceof AgentError && err.reason === 'empty_response';
}

export interface ExecutorDeps {
  registry: Registry;
  settings: RuntimeSettings;
  sinks: TraceSink[];
  requestMeta: RequestMetaStore;
  log: Logger;
  store: MemoryStore;
  memory: MemoryConfig;
  summarizer: Summarizer;
  /** Counts for /api/v1/status. */
  stats: { invocations: number; completed: number; failed: number; input_required: number; canceled: number };
}

interface Running {
  controller: AbortController;
  canceled: boolean;
}

export class GraphAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, Running>();
  /** contextId of each running task, for the canceled status event. */
  private readonly contextOf = new Map<string, string>();

  constructor(private readonly deps: ExecutorDeps) {}

  get activeCount(): number {
    return this.running.size;
  }

  /** Whether this process runs the task now. */
  runsHere(taskId: string): boolean {
    return this.running.has(taskId);
  }

  cancelTask = async (taskId: string, eventBus: ExecutionEventBus): Promise<void> => {
    const run = this.running.get(taskId);
    if (run) {
      run.canceled = true;
      run.controller.abort(new Error('task canceled'));
    }
    this.deps.stats.canceled += 1;
    const contextId = this.contextOf.get(taskId) ?? '';
    eventBus.publish({
      kind: 'status-update',
      taskId,
      contextId,
      status: { state: 'canceled', timestamp: new Date().toISOString(), message: agentMessage([{ kind: 'text', text: 'The task was canceled.' }], taskId, contextId) },
      final: true,
    });
    eventBus.finished();
  };

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId, userMessage } = ctx;
    const { settings, registry, log, stats } = this.deps;
    const meta = this.deps.requestMeta.take(userMessage.messageId);
    const run: Running = { controller: new AbortController(), canceled: false };
    this.running.set(taskId, run);
    this.contextOf.set(taskId, contextId);
    stats.invocations += 1;

    const gen = registry.current; // spec: in-flight invocations finish on their generation
    const labels: Record<string, unknown> = {};
    for (const key of OBSERVATION_LABEL_KEYS) if (meta.metadata[key] !== undefined) labels[key] = meta.metadata[key];
    const capture = meta.captureToken && settings.captureUrl ? new CaptureBuffer(settings.captureUrl, meta.captureToken, log) : null;
    const tracer = new InvocationTracer(
      this.deps.sinks,
      { task_id: taskId, context_id: contextId, agent_id: settings.agentId, generation: gen.number, ...labels },
      capture,
    );
    const started = performance.now();
    /** Milliseconds per node (STAGE_TIMING), filled while the graph runs (a failure reports it too). */
    const latency: Record<string, number> = {};
    let chunkCount = 0;
    const transcript: TranscriptMessage[] = [];
    const now = () => new Date().toISOString();
    // Spans are described only when someone receives them (the studio, a NATS sink, the log
    // at debug): describing a node's update costs CPU on every request.
    const spansWanted = settings.nodeSpans && tracer.wants('span.end');
    const spans = new SpanTracker((name, fields) => tracer.emit(name, fields), gen.project.dir, spansWanted);

    // The thread's messages are written before the final status goes out, so a client that
    // reads them right after the answer (on any replica) sees this turn.
    let transcriptSaved = false;
    const saveTranscript = async () => {
      if (transcriptSaved) return;
      transcriptSaved = true;
      if (this.deps.memory.enabled && transcript.length) {
        await this.deps.store.appendTranscript(settings.agentId, contextId, transcript).catch((err) => log.warn({ err: (err as Error).message }, 'transcript not saved'));
      }
    };

    const publishStatus = (state: TaskState, message?: Message) => {
      if (run.canceled) return;
      bus.publish({ kind: 'status-update', taskId, contextId, status: { state, timestamp: now(), ...(message ? { message } : {}) }, final: state !== 'working' });
    };

    /** The complete artifact, replacing any streamed chunks. */
    const publishArtifact = (name: string, parts: Part[]) =>
      bus.publish({ kind: 'artifact-update', taskId, contextId, append: false, lastChunk: true, artifact: { artifactId: ARTIFACT_ID, name, parts } });

    try {
      if (!ctx.task) {
        const task: Task = { kind: 'task', id: taskId, contextId, status: { state: 'submitted', timestamp: now() }, history: [userMessage], artifacts: [] };
        bus.publish(task);
      }
      publishStatus('working');
      tracer.emit('invoke.start', { message_id: userMessage.messageId, parts: userMessage.parts.map((p) => p.kind), user_id: meta.metadata.userId });

      const request = requestFromMessage(userMessage, meta.metadata, contextId, taskId);
      this.validateContracts(gen, request);
      const config: Record<string, unknown> = { configurable: { thread_id: contextId, ...meta.configurable } };
      const input = await this.prepareInput(request, meta, contextId, tracer, transcript, run.controller.signal);

      // Token deltas only when the client can follow them: LangGraph's `messages` mode hooks
      // a callback into every runnable of the run, about 0.5 ms of CPU an invocation of the
      // example (D-15). A blocking message/send gets the final text from the exit node.
      // `tasks` gives the node spans (spans.ts) from LangGraph's own loop, with no callback;
      // `subgraphs` makes a subgraph's nodes spans too.
      const modes = meta.streaming ? ['updates', 'messages', 'custom'] : ['updates', 'custom'];
      // (not asked for when nobody receives spans: LangGraph describes every task for it)
      if (spansWanted || settings.stageTiming) modes.push('tasks');
      const stream = await gen.graph.stream(input, {
        ...config,
        streamMode: modes as ('updates' | 'messages' | 'custom' | 'tasks')[],
        subgraphs: settings.nodeSpans,
        signal: run.controller.signal,
        recursionLimit: gen.project.manifest.graph.recursionLimit,
        // One checkpoint per invocation (and at an interrupt): per-step checkpoints would
        // re-serialise the whole thread several times a turn (docs/performance.md).
        durability: 'exit',
      });
      const { interrupt, response, exitText } = await consumeGraphStream(stream, {
        exitNode: gen.exitNode,
        latency,
        spans,
        emit: (name, fields) => tracer.emit(name, fields),
        onToken: (text) => {
          bus.publish({
            kind: 'artifact-update',
            taskId,
            contextId,
            append: chunkCount > 0,
            lastChunk: false,
            artifact: { artifactId: ARTIFACT_ID, name: artifactName(null, gen), parts: [{ kind: 'text', text }] },
          });
          chunkCount += 1;
        },
      });
      if (interrupt) {
        stats.input_required += 1;
        const value = (interrupt.value ?? {}) as Record<string, unknown>;
        const question = typeof value.question === 'string' ? value.question : 'More input is needed to continue.';
        transcript.push({ role: 'ai', content: question }); // the thread's messages show what was asked
        tracer.emit('invoke.end', { state: 'input-required', duration_ms: Math.round(performance.now() - started), ...(settings.stageTiming ? { latency } : {}) });
        await tracer.flush();
        await saveTranscript();
        publishStatus('input-required', agentMessage([{ kind: 'text', text: question }, { kind: 'data', data: { ...value, inputRequired: true } }], taskId, contextId));
        return;
      }

      // One rule for message/send and message/stream: the response's text, else the exit
      // node's last AI message. Streamed chunks are only ever a preview of that answer.
      const text = response?.text ?? exitText ?? '';
      if (!text && !response?.data) {
        throw new AgentError({
          code: 'INTERNAL_ERROR',
          reason: 'empty_response',
          message: `The exit node '${gen.exitNode}' finished without an answer: return { response: { text } } (or response.data), or an AI message in messages.`,
        });
      }
      const finalResponse: AgentResponse = { ...response, text };
      if (finalResponse.text) transcript.push({ role: 'ai', content: finalResponse.text });
      await runEvaluators(gen, request, finalResponse, { request, response: finalResponse }, (name, fields) => tracer.emit(name, fields), run.controller.signal);
      const parts = applyDefaultSchema(responseParts(finalResponse), gen.project.manifest.output.schema);
      stats.completed += 1;
      // cache_stats from the model's own callback (src/sdk/usage.ts), filed under this thread.
      const cacheStats = modelUsage().take(contextId);
      tracer.emit('invoke.end', {
        state: 'completed',
        duration_ms: Math.round(performance.now() - started),
        chunks: chunkCount,
        ...(settings.stageTiming ? { latency } : {}),
        ...(cacheStats ? { cache_stats: cacheStats } : {}),
      });
      await tracer.flush();
      if (run.canceled) return;
      await saveTranscript();
      publishArtifact(artifactName(finalResponse, gen), parts);
      publishStatus('completed');
    } catch (err) {
      if (run.canceled) {
        spans.closeAll();
        tracer.emit('invoke.end', { state: 'canceled', duration_ms: Math.round(performance.now() - started) });
        await tracer.flush();
        return;
      }
      spans.failWith(err); // the failing node's span says why; the others were cut off
      // Which node failed and where (node-failures.ts): in the DataPart and the trace; the
      // stack only in the trace and the log, never to the A2A client.
      const node = failureOf(err)?.node ?? (isEmptyAnswer(err) ? gen.exitNode : undefined);
      const source = sourceOf(err, gen.project.dir);
      const failure = toAgentError(err, { node, source });
      stats.failed += 1;
      if (failure.code === 'INTERNAL_ERROR') log.error({ err, task_id: taskId, node, source }, 'invocation failed');
      const body = { ...failure.toDataPart(), ...(node ? { node } : {}), ...(source ? { source } : {}) };
      tracer.emit('invoke.end', {
        state: 'failed',
        ...(node ? { node } : {}),
        ...(source ? { source } : {}),
        ...(failure.code === 'INTERNAL_ERROR' && err instanceof Error && err.stack ? { stack: err.stack.split('\n').slice(0, 12).join('\n') } : {}),
        duration_ms: Math.round(performance.now() - started),
        errorCode: failure.code,
        errorReason: failure.reason,
        retriable: failure.retriable,
        ...(failure.domainCode ? { domainCode: failure.domainCode, domainTitle: failure.domainTitle } : {}),
        ...(failure.detail ? { detail: failure.detail } : {}),
        ...(settings.stageTiming ? { latency } : {}),
      });
      await tracer.flush();
      // spec 3: a failure after partial streaming discards the buffer (the artifact is
      // replaced) and ends the stream failed; the request is not re-run.
      await saveTranscript();
      publishArtifact(artifactName(null, gen), [{ kind: 'data', data: body }]);
      publishStatus('failed', agentMessage([{ kind: 'text', text: failure.message }, { kind: 'data', data: body }], taskId, contextId));
    } finally {
      await saveTranscript();
      this.running.delete(taskId);
      this.contextOf.delete(taskId);
      if (!run.canceled) bus.finished();
    }
  };

  private validateContracts(gen: Generation, request: AgentRequest): void {
    for (const [i, data] of request.data.entries()) {
      const id = typeof data.schema === 'string' ? data.schema : undefined;
      const contract = id ? gen.project.contracts.get(id) : undefined;
      if (!contract) continue;
      if (!contract.validate(data)) {
        const problems = describeContractErrors(contract.validate.errors);
        throw new AgentError({
          code: 'INVALID_INPUT',
          reason: 'contract_violation',
          message: `DataPart ${i + 1} does not match contract ${id}: ${contractProblemsText(problems)}`,
          detail: { schema: id, part: i + 1, problems, errors: contract.validate.errors },
        });
      }
    }
  }

  /** The graph's input for this message: a resume of a pending interrupt, or the new human
   * message with the working-memory policy applied (history seed on a cold thread, summary
   * fold or bounding on a warm one, optional caps). Records the human turn in `transcript`. */
  private async prepareInput(request: AgentRequest, meta: RequestMeta, contextId: string, tracer: InvocationTracer, transcript: TranscriptMessage[], signal: AbortSignal): Promise<unknown> {
    const { settings, registry, memory } = this.deps;
    const emit = (name: string, fields: Record<string, unknown>) => tracer.emit(name, fields);
    // The latest checkpoint tells whether the thread is cold and whether an interrupt
    // waits for this message; reading the tuple is cheaper than computing getState. The
    // SQLite saver hands this same tuple to the run's first read (readForRun), so a warm
    // turn deserialises its state once.
    const saver = registry.checkpointer as BaseCheckpointSaver & { readForRun?(threadId: string): Promise<CheckpointTuple | undefined> };
    const tuple = saver.readForRun ? await saver.readForRun(contextId) : await saver.getTuple({ configurable: { thread_id: contextId, checkpoint_ns: '' } });
    const cold = !tuple;
    const writes = tuple?.pendingWrites ?? [];
    const pending = writes.some((w) => w[1] === '__interrupt__') && !writes.some((w) => w[1] === '__resume__');
    const history = (tuple?.checkpoint.channel_values?.messages ?? []) as BaseMessage[];
    if (settings.maxHistoryTokens !== null) capInput(request, settings.maxHistoryTokens, emit);
    const human = new HumanMessage(request.text || '(structured input)');
    // A cold thread has no summary yet (summaries are only written for threads with
    // checkpoints, and deleting a thread deletes both), so it skips the read.
    const { removals: folded, summary } = cold
      ? { removals: [], summary: undefined }
      : !memory.summarize
        ? { removals: [], summary: await this.summaryOf(contextId) }
        : await this.fold(contextId, history, tracer, signal);
    if (summary) request.memory = { summary };

    const bounded = folded.length || cold ? [] : boundWorkingMemory(history, memory);
    const seed = cold && !pending ? historySeed(meta.history, settings.historyMaxMessages) : [];
    transcript.push(...seed.map(toTranscript), { role: 'human', content: human.content as string });
    if (pending) return new Command({ resume: request, update: { messages: [...folded, ...bounded, human] } });
    const trimmed = settings.maxHistoryTokens !== null ? capHistory(cold ? seed : history, settings.maxHistoryTokens, emit, cold) : null;
    const messages = trimmed ? [...folded, ...bounded, ...trimmed.messages, human] : [...folded, ...bounded, ...seed, human];
    return { messages, request, response: null };
  }

  private async summaryOf(threadId: string): Promise<string | undefined> {
    if (!this.deps.memory.enabled) return undefined;
    const stored = (await this.deps.store.getMemory(this.deps.settings.agentId, threadId, SUMMARY_KEY)) as { text?: string } | undefined;
    return stored?.text;
  }

  /** Folds older messages into the thread's long-term summary (spec 2.3 summarize); returns
   * the removals for the thread and the summary the graph should see. */
  private async fold(threadId: string, messages: BaseMessage[], tracer: InvocationTracer, signal: AbortSignal): Promise<{ removals: RemoveMessage[]; summary: string | undefined }> {
    const { memory, store, settings, summarizer } = this.deps;
    const previous = (await store.getMemory(settings.agentId, threadId, SUMMARY_KEY)) as { text?: string; folded_messages?: number } | undefined;
    const plan = planFold(messages, memory.window_size, memory.summarize_threshold);
    if (!plan) return { removals: [], summary: previous?.text };
    const text = await summarizer(previous?.text ?? null, plan.folded, signal);
    const total = (previous?.folded_messages ?? 0) + plan.folded.length;
    await store.putMemory(settings.agentId, threadId, SUMMARY_KEY, { text, folded_messages: total, updated_at: new Date().toISOString() });
    tracer.emit('memory.summarized', { folded_messages: plan.folded.length, kept_messages: messages.length - plan.folded.length, total_folded: total });
    return { removals: plan.removals, summary: text };
  }
}
