// The A2A executor: one A2A message <-> one LangGraph invocation on the thread named by
// contextId. Streams the exit node's text, turns interrupts into input_required, errors
// into failed with the spec 7.2 DataPart, and runs evaluators on completed answers.
import { randomUUID } from 'node:crypto';
import type { AgentExecutor, ExecutionEventBus, RequestContext } from '@a2a-js/sdk/server';
import type { Message, Part, Task, TaskState } from '@a2a-js/sdk';
import { Command } from '@langchain/langgraph';
import { AIMessage, HumanMessage, RemoveMessage, coerceMessageLikeToMessage, type BaseMessage, type BaseMessageLike, type UsageMetadata } from '@langchain/core/messages';
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { LLMResult } from '@langchain/core/outputs';
import type { Logger } from 'pino';
import { AgentError } from '../../sdk/errors.ts';
import type { AgentFile, AgentRequest, AgentResponse } from '../../sdk/state.ts';
import type { RuntimeSettings } from './config.ts';
import type { Generation, Registry } from './registry.ts';
import { toAgentError } from './errors.ts';
import { CaptureBuffer, InvocationTracer, type TraceSink } from './trace.ts';
import type { RequestMetaStore } from './request-meta.ts';
import type { MemoryStore, TranscriptMessage } from './store/types.ts';
import type { MemoryConfig } from './registry.ts';
import { planFold, SUMMARY_KEY, type Summarizer } from './memory-fold.ts';
import { OBSERVATION_LABEL_KEYS } from './request-meta.ts';

export const DEFAULT_ARTIFACT_NAME = 'agent-response';
/** Messages kept in the checkpointed working state (at least; 2 x window_size if larger). */
export const WORKING_MEMORY_MAX = 40;

function toTranscript(m: BaseMessage): TranscriptMessage {
  return { role: m._getType() === 'ai' ? 'ai' : 'human', content: messageText(m) };
}
const ARTIFACT_ID = 'response';

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

/** Rough token estimate (4 characters a token) for the optional input-size caps (spec 8). */
function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** The text of the last AI message in a node's `messages` update, if any. Nodes may return
 * message objects or message-likes (`{role, content}`, tuples); content blocks give their text. */
export function lastAiText(messages: unknown): string | undefined {
  const list = Array.isArray(messages) && !isMessageTuple(messages) ? messages : messages ? [messages] : [];
  for (let i = list.length - 1; i >= 0; i--) {
    let m: BaseMessage;
    try {
      m = coerceMessageLikeToMessage(list[i] as BaseMessageLike);
    } catch {
      continue; // not a message (a RemoveMessage marker or anything else)
    }
    if (m._getType() === 'ai' && m.text) return m.text;
  }
  return undefined;
}

function isMessageTuple(v: unknown[]): boolean {
  return v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string';
}

function messageText(m: BaseMessage): string {
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

export function requestFromMessage(message: Message, metadata: Record<string, unknown>, contextId: string, taskId: string): AgentRequest {
  const texts: string[] = [];
  const data: Record<string, unknown>[] = [];
  const files: AgentFile[] = [];
  for (const part of message.parts) {
    if (part.kind === 'text') texts.push(part.text);
    else if (part.kind === 'data') data.push(part.data as Record<string, unknown>);
    else if (part.kind === 'file') {
      const f = part.file as { uri?: string; bytes?: string; name?: string; mimeType?: string };
      files.push({ name: f.name, mimeType: f.mimeType, ...(f.uri !== undefined ? { uri: f.uri } : { bytes: f.bytes }) });
    }
  }
  return { text: texts.join('\n\n'), data, files, metadata, contextId, taskId };
}

/** spec 4.1 rule 4: only user/agent items with TextParts, malformed ones skipped, the last N kept. */
export function historySeed(history: unknown, max: number): BaseMessage[] {
  if (!Array.isArray(history)) return [];
  const out: BaseMessage[] = [];
  for (const item of history) {
    if (!item || typeof item !== 'object') continue;
    const { role, parts } = item as { role?: unknown; parts?: unknown };
    if ((role !== 'user' && role !== 'agent') || !Array.isArray(parts)) continue;
    const text = parts
      .filter((p): p is { kind: 'text'; text: string } => !!p && typeof p === 'object' && (p as Part).kind === 'text' && typeof (p as { text?: unknown }).text === 'string')
      .map((p) => p.text)
      .join('\n');
    if (!text) continue;
    out.push(role === 'user' ? new HumanMessage(text) : new AIMessage(text));
  }
  return out.slice(-max);
}

/** spec 4.1 rule 6: the default schema key goes on the first DataPart only, never over an existing one. */
export function applyDefaultSchema(parts: Part[], schema: string | undefined): Part[] {
  if (!schema) return parts;
  const i = parts.findIndex((p) => p.kind === 'data');
  if (i < 0) return parts;
  const first = parts[i] as Extract<Part, { kind: 'data' }>;
  if (first.data && typeof first.data === 'object' && 'schema' in first.data) return parts;
  const copy = parts.slice();
  copy[i] = { ...first, data: { schema, ...first.data } };
  return copy;
}

/** spec 4.1 rule 6: request result, adapter constant, server configuration, default. */
export function artifactName(response: AgentResponse | null, gen: Generation): string {
  return response?.artifactName || gen.adapterArtifactName || gen.project.manifest.output.artifactName || DEFAULT_ARTIFACT_NAME;
}

function responseParts(response: AgentResponse | null): Part[] {
  const parts: Part[] = [];
  if (response?.text) parts.push({ kind: 'text', text: response.text });
  if (response?.data) parts.push({ kind: 'data', data: response.data });
  for (const d of response?.extraData ?? []) parts.push({ kind: 'data', data: d });
  for (const f of response?.files ?? []) {
    const base = { name: f.name, mimeType: f.mimeType };
    parts.push({ kind: 'file', file: f.uri !== undefined ? { ...base, uri: f.uri } : { ...base, bytes: f.bytes ?? '' } });
  }
  return parts;
}

function agentMessage(parts: Part[], taskId: string, contextId: string): Message {
  return { kind: 'message', role: 'agent', messageId: randomUUID(), parts, taskId, contextId };
}

/** cache_stats (spec 6.3): the model's usage, read where every model call ends. A handler
 * instance that ignores chain events, so LangChain neither wraps it per runnable nor calls
 * it for every node. */
class UsageHandler extends BaseCallbackHandler {
  name = 'agent-studio-usage';
  cacheStats: Record<string, number> | undefined;

  constructor() {
    super({ ignoreChain: true, ignoreAgent: true, ignoreRetriever: true, ignoreCustomEvent: true });
  }

  override handleLLMEnd(output: LLMResult): void {
    const usage = (output.generations?.[0]?.[0] as { message?: { usage_metadata?: UsageMetadata } } | undefined)?.message?.usage_metadata;
    const d = usage?.input_token_details;
    if (usage && d && (d.cache_read !== undefined || d.cache_creation !== undefined)) {
      this.cacheStats = { input_tokens: usage.input_tokens ?? 0, cache_read_tokens: d.cache_read ?? 0, cache_creation_tokens: d.cache_creation ?? 0 };
    }
  }
}

export class GraphAgentExecutor implements AgentExecutor {
  private readonly running = new Map<string, Running>();
  /** contextId of each running task, for the canceled status event. */
  private readonly contextOf = new Map<string, string>();

  constructor(private readonly deps: ExecutorDeps) {}

  get activeCount(): number {
    return this.running.size;
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
    const stageStart = new Map<string, number>();
    const latency: Record<string, number> = {};
    let chunkCount = 0;
    const transcript: TranscriptMessage[] = [];
    const now = () => new Date().toISOString();

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
      // The latest checkpoint tells whether the thread is cold and whether an interrupt
      // waits for this message; reading the tuple is cheaper than computing getState.
      const tuple = await registry.checkpointer.getTuple({ configurable: { thread_id: contextId, checkpoint_ns: '' } });
      const cold = !tuple;
      const writes = tuple?.pendingWrites ?? [];
      const pending = writes.some((w) => w[1] === '__interrupt__') && !writes.some((w) => w[1] === '__resume__');
      const history = (tuple?.checkpoint.channel_values?.messages ?? []) as BaseMessage[];
      let input: unknown;
      if (settings.maxHistoryTokens !== null) this.capInput(request, settings.maxHistoryTokens, tracer);
      const human = new HumanMessage(request.text || '(structured input)');
      // A cold thread has no summary yet (summaries are only written for threads with
      // checkpoints, and deleting a thread deletes both), so it skips the read.
      const { removals: folded, summary } = cold
        ? { removals: [], summary: undefined }
        : !this.deps.memory.summarize
          ? { removals: [], summary: await this.summaryOf(contextId) }
          : await this.fold(contextId, history, tracer, run.controller.signal);
      if (summary) request.memory = { summary };

      const bounded = folded.length || cold ? [] : this.boundWorkingMemory(history);
      const seed = cold && !pending ? historySeed(meta.history, settings.historyMaxMessages) : [];
      transcript.push(...seed.map(toTranscript), { role: 'human', content: human.content as string });
      if (pending) {
        input = new Command({ resume: request, update: { messages: [...folded, ...bounded, human] } });
      } else {
        const trimmed = settings.maxHistoryTokens !== null ? this.capHistory(cold ? seed : history, settings.maxHistoryTokens, tracer, cold) : null;
        const messages = trimmed ? [...folded, ...bounded, ...trimmed.messages, human] : [...folded, ...bounded, ...seed, human];
        input = { messages, request, response: null };
      }

      const usage = new UsageHandler();
      // Token deltas only when the client can follow them: LangGraph's `messages` mode hooks
      // a callback into every runnable of the run, about 0.5 ms of CPU an invocation of the
      // example (D-15). A blocking message/send gets the final text from the exit node.
      const modes = meta.streaming ? ['updates', 'messages', 'custom'] : ['updates', 'custom'];
      if (settings.stageTiming) modes.push('tasks');
      const stream = await gen.graph.stream(input, {
        ...config,
        callbacks: [usage],
        streamMode: modes as ('updates' | 'messages' | 'custom' | 'tasks')[],
        signal: run.controller.signal,
        recursionLimit: gen.project.manifest.graph.recursionLimit,
        // One checkpoint per invocation (and at an interrupt): per-step checkpoints would
        // re-serialise the whole thread several times a turn (docs/performance.md).
        durability: 'exit',
      });
      let interrupt: { value?: unknown } | undefined;
      let response: AgentResponse | null = null;
      /** Text of the last AI message the exit node returned: the answer when no response.text. */
      let exitText: string | undefined;
      for await (const item of stream) {
        const [mode, payload] = item as [string, any];
        if (mode === 'updates') {
          if (payload?.__interrupt__?.length) interrupt ??= payload.__interrupt__[0];
          for (const [node, update] of Object.entries(payload ?? {})) {
            if (!update || typeof update !== 'object') continue;
            if ('response' in update) response = (update as { response: AgentResponse | null }).response;
            if (node === gen.exitNode) exitText = lastAiText((update as { messages?: unknown }).messages) ?? exitText;
          }
        } else if (mode === 'custom' && payload && typeof payload === 'object' && payload.__trace) {
          const { name, ...fields } = payload.__trace as { name: string };
          tracer.emit(name, fields);
        } else if (mode === 'tasks') {
          if (!('input' in payload)) {
            const t0 = stageStart.get(payload.id);
            if (t0 !== undefined) latency[payload.name] = Math.round((latency[payload.name] ?? 0) + performance.now() - t0);
          } else stageStart.set(payload.id, performance.now());
        } else if (mode === 'messages') {
          const [chunk, md] = payload as [BaseMessage, Record<string, unknown>];
          if (md?.langgraph_node !== gen.exitNode || chunk.constructor.name !== 'AIMessageChunk') continue;
          const text = messageText(chunk);
          if (!text) continue;
          bus.publish({
            kind: 'artifact-update',
            taskId,
            contextId,
            append: chunkCount > 0,
            lastChunk: false,
            artifact: { artifactId: ARTIFACT_ID, name: artifactName(null, gen), parts: [{ kind: 'text', text }] },
          });
          chunkCount += 1;
        }
      }

      if (interrupt) {
        stats.input_required += 1;
        const value = (interrupt.value ?? {}) as Record<string, unknown>;
        const question = typeof value.question === 'string' ? value.question : 'More input is needed to continue.';
        transcript.push({ role: 'ai', content: question }); // the thread's messages show what was asked
        tracer.emit('invoke.end', { state: 'input-required', duration_ms: Math.round(performance.now() - started), ...(settings.stageTiming ? { latency } : {}) });
        await tracer.flush();
        publishStatus('input-required', agentMessage([{ kind: 'text', text: question }, { kind: 'data', data: { ...value, inputRequired: true } }], taskId, contextId));
        return;
      }

      // One rule for message/send and message/stream: the response's text, else the exit
      // node's last AI message. Streamed chunks are only ever a preview of that answer.
      const text = response?.text ?? exitText ?? '';
      if (!text && !response?.data) {
        throw new AgentError({ code: 'INTERNAL_ERROR', reason: 'empty_response', message: 'The agent finished without an answer.' });
      }
      const finalResponse: AgentResponse = { ...response, text };
      if (finalResponse.text) transcript.push({ role: 'ai', content: finalResponse.text });
      await this.evaluate(gen, request, finalResponse, { request, response: finalResponse }, tracer, run.controller.signal);
      const parts = applyDefaultSchema(responseParts(finalResponse), gen.project.manifest.output.schema);
      stats.completed += 1;
      tracer.emit('invoke.end', {
        state: 'completed',
        duration_ms: Math.round(performance.now() - started),
        chunks: chunkCount,
        ...(settings.stageTiming ? { latency } : {}),
        ...(usage.cacheStats ? { cache_stats: usage.cacheStats } : {}),
      });
      await tracer.flush();
      if (run.canceled) return;
      publishArtifact(artifactName(finalResponse, gen), parts);
      publishStatus('completed');
    } catch (err) {
      if (run.canceled) {
        tracer.emit('invoke.end', { state: 'canceled', duration_ms: Math.round(performance.now() - started) });
        await tracer.flush();
        return;
      }
      const failure = toAgentError(err);
      stats.failed += 1;
      if (failure.code === 'INTERNAL_ERROR') log.error({ err, task_id: taskId }, 'invocation failed');
      const body = failure.toDataPart();
      tracer.emit('invoke.end', {
        state: 'failed',
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
      publishArtifact(artifactName(null, gen), [{ kind: 'data', data: body }]);
      publishStatus('failed', agentMessage([{ kind: 'text', text: failure.message }, { kind: 'data', data: body }], taskId, contextId));
    } finally {
      if (this.deps.memory.enabled && transcript.length) {
        await this.deps.store.appendTranscript(settings.agentId, contextId, transcript).catch((err) => log.warn({ err: (err as Error).message }, 'transcript not saved'));
      }
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
        const problems = (contract.validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`).join('; ');
        throw new AgentError({
          code: 'INVALID_INPUT',
          reason: 'contract_violation',
          message: `DataPart ${i + 1} does not match contract ${id}: ${problems}`,
          detail: { schema: id, errors: contract.validate.errors },
        });
      }
    }
  }

  /** Keeps the checkpointed working memory bounded so a turn's cost does not grow with the
   * thread: beyond WORKING_MEMORY_MAX (or twice window_size) the oldest messages leave the
   * state. They stay in the transcript; with summarize on, fold() handles it instead. */
  private boundWorkingMemory(messages: BaseMessage[]): RemoveMessage[] {
    if (this.deps.memory.summarize) return [];
    const cap = Math.max(WORKING_MEMORY_MAX, 2 * this.deps.memory.window_size);
    if (messages.length <= cap) return [];
    return messages
      .slice(0, messages.length - cap)
      .filter((m) => m.id)
      .map((m) => new RemoveMessage({ id: m.id! }));
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

  /** spec 8: optional input cap; events only when MAX_HISTORY_TOKENS is set. */
  private capInput(request: AgentRequest, limit: number, tracer: InvocationTracer): void {
    const tokens = estimateTokens(request.text);
    tracer.emit('input_cap.measured', { tokens, limit });
    if (tokens <= limit) return;
    request.text = request.text.slice(0, limit * 4);
    tracer.emit('input_cap.truncated', { tokens_before: tokens, tokens_after: estimateTokens(request.text), limit });
  }

  /** Keeps the newest messages that fit the token budget; older ones leave the thread. */
  private capHistory(messages: BaseMessage[], limit: number, tracer: InvocationTracer, cold: boolean): { messages: BaseMessage[] } {
    const total = messages.reduce((n, m) => n + estimateTokens(messageText(m)), 0);
    tracer.emit('history.measured', { tokens: total, messages: messages.length, limit });
    if (total <= limit) return { messages: cold ? messages : [] };
    let budget = limit;
    let keepFrom = messages.length;
    while (keepFrom > 0 && budget - estimateTokens(messageText(messages[keepFrom - 1])) >= 0) {
      budget -= estimateTokens(messageText(messages[keepFrom - 1]));
      keepFrom -= 1;
    }
    const dropped = messages.slice(0, keepFrom);
    tracer.emit('history.truncated', { removed_messages: dropped.length, tokens_before: total, tokens_after: limit - budget, limit });
    if (cold) return { messages: messages.slice(keepFrom) };
    return { messages: dropped.filter((m) => m.id).map((m) => new RemoveMessage({ id: m.id! })) };
  }

  /** spec 4.1 rule 5: every completed output, exactly once, in order, each with a timeout;
   * an evaluator's failure is an observation and never fails the answer. */
  private async evaluate(gen: Generation, request: AgentRequest, response: AgentResponse, state: unknown, tracer: InvocationTracer, signal: AbortSignal): Promise<void> {
    for (const { decl, run } of gen.project.evaluators) {
      const t0 = performance.now();
      const controller = new AbortController();
      const onAbort = () => controller.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      let timer: NodeJS.Timeout | undefined;
      try {
        const work = Promise.resolve().then(() => run({ request, response, state, signal: controller.signal }));
        const limit = decl.timeoutSeconds;
        const result = await (limit === null
          ? work
          : Promise.race([
              work,
              new Promise<never>((_, reject) => {
                timer = setTimeout(() => {
                  controller.abort(new Error('evaluator timeout'));
                  reject(new Error(`evaluator timed out after ${limit}s`));
                }, limit * 1000);
              }),
            ]));
        const score = typeof result?.score === 'number' && Number.isFinite(result.score) ? result.score : null;
        tracer.emit('evaluation.result', {
          evaluator: decl.name,
          score,
          ...(result?.reason !== undefined ? { reason: result.reason } : {}),
          ...(result?.passStatus !== undefined ? { passStatus: result.passStatus } : {}),
          ...((result?.scope ?? decl.scope) !== undefined ? { scope: result?.scope ?? decl.scope } : {}),
          ...((result?.node ?? decl.node) !== undefined ? { node: result?.node ?? decl.node } : {}),
          duration_ms: Math.round(performance.now() - t0),
        });
      } catch (err) {
        tracer.emit('evaluation.error', { evaluator: decl.name, error: (err as Error).message, duration_ms: Math.round(performance.now() - t0) });
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      }
    }
  }
}
