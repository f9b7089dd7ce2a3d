// cache_stats (spec 6.3) and model-call records where usage is produced: a callback on the
// models createChatModel builds, not on every runnable of the run (which made LangChain build
// a callback manager for each one; docs/performance.md). It files each model call's
// prompt-cache usage under the thread (LangGraph puts `thread_id` in a call's metadata); the
// runtime takes it when the invocation ends. A runtime watching a thread also gets one record
// per model call (provider, models, tokens, the node's task), which becomes the `model.call`
// trace event (docs/runtime-traces.md). One instance per process, shared through globalThis.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { BaseMessage, UsageMetadata } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { modelCallEnd, modelCallStart, type ModelCall, type OpenCall } from './model-call.ts';
import { callSession } from './call-record.ts';
import { modelCallNotes } from './replay-model.ts';

export type CacheStats = { input_tokens: number; cache_read_tokens: number; cache_creation_tokens: number };
export type { ModelCall } from './model-call.ts';

/** Receives each finished model call of a watched thread; `content` asks for the messages.
 * `stopped()` true (the run went over its budget) leaves a call that starts now unrecorded:
 * the runtime has aborted the run, so it never reaches the model. */
export interface ModelCallWatcher {
  content: boolean;
  onCall(call: ModelCall): void;
  stopped?(): boolean;
}

class ModelUsageHandler extends BaseCallbackHandler {
  name = 'agent-studio-model-usage';
  private readonly open = new Map<string, OpenCall>();
  private readonly stats = new Map<string, CacheStats>();
  private readonly watchers = new Map<string, ModelCallWatcher>();

  constructor() {
    // Awaited, not queued in LangChain's background queue: a call's end is counted before the
    // node goes on (a per-run budget stops the next call, D-94), and a call's start is seen in
    // the caller's async context (its fan-out branch, branch-context.ts).
    super({ ignoreChain: true, ignoreAgent: true, ignoreRetriever: true, ignoreCustomEvent: true, _awaitHandler: true });
  }

  override handleChatModelStart(
    _llm: unknown,
    messages: BaseMessage[][],
    runId: string,
    _parent?: string,
    extra?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    const thread = metadata?.thread_id;
    if (thread === undefined || thread === null) return;
    const watcher = this.watchers.get(String(thread));
    if (watcher?.stopped?.()) return;
    // A run that records its calls keeps their messages and parameters (D-91).
    const recording = callSession(thread)?.options.record === true;
    this.open.set(runId, modelCallStart(String(thread), metadata ?? {}, extra, watcher?.content || recording ? messages?.[0] : undefined, recording));
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const call = this.open.get(runId);
    this.open.delete(runId);
    if (!call) return;
    const message = (output.generations?.[0]?.[0] as { message?: BaseMessage & { usage_metadata?: UsageMetadata } } | undefined)?.message;
    const usage = message?.usage_metadata;
    const d = usage?.input_token_details;
    if (usage && d && (d.cache_read !== undefined || d.cache_creation !== undefined)) {
      this.stats.set(call.thread, {
        input_tokens: usage.input_tokens ?? 0,
        cache_read_tokens: d.cache_read ?? 0,
        cache_creation_tokens: d.cache_creation ?? 0,
      });
    }
    const watcher = this.watchers.get(call.thread);
    if (watcher) watcher.onCall(withNote(modelCallEnd(call, runId, { message, output, content: watcher.content || call.params !== undefined }), runId));
    else modelCallNotes().delete(runId);
  }

  override handleLLMError(err: unknown, runId: string): void {
    const call = this.open.get(runId);
    this.open.delete(runId);
    const watcher = call && this.watchers.get(call.thread);
    if (call && watcher) watcher.onCall(withNote(modelCallEnd(call, runId, { error: err, content: false }), runId));
    else modelCallNotes().delete(runId);
  }

  /** The last model call's cache usage on this thread since the last take, if any. */
  take(threadId: string): CacheStats | undefined {
    const s = this.stats.get(threadId);
    this.stats.delete(threadId);
    return s;
  }

  /** Reports this thread's model calls to `watcher` until the returned function is called
   * (one invocation runs on a thread at a time). */
  watch(threadId: string, watcher: ModelCallWatcher): () => void {
    this.watchers.set(threadId, watcher);
    return () => {
      if (this.watchers.get(threadId) === watcher) this.watchers.delete(threadId);
    };
  }
}

/** A recorded call's key, branch and replay flag (replay-model.ts) on its `model.call`. */
function withNote(call: ModelCall, runId: string): ModelCall {
  const notes = modelCallNotes();
  const note = notes.get(runId);
  if (!note) return call;
  notes.delete(runId);
  return {
    ...call,
    kind: 'model',
    key: note.key,
    ...(note.raw ? { raw_request: note.raw } : {}),
    ...(note.replayed ? { replayed: true } : {}),
  };
}

const KEY = Symbol.for('agent-studio.model-usage');

export function modelUsage(): ModelUsageHandler {
  const g = globalThis as unknown as Record<symbol, ModelUsageHandler | undefined>;
  return (g[KEY] ??= new ModelUsageHandler());
}
