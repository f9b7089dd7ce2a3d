// cache_stats (spec 6.3) where usage is produced: a callback on the models createChatModel
// builds, not on every runnable of the run (which made LangChain build a callback manager
// for each one; docs/performance.md). It files each model call's prompt-cache usage under the thread
// (LangGraph puts `thread_id` in a call's metadata); the runtime takes it when the
// invocation ends. One instance per process, shared through globalThis.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { UsageMetadata } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';

export type CacheStats = { input_tokens: number; cache_read_tokens: number; cache_creation_tokens: number };

class ModelUsageHandler extends BaseCallbackHandler {
  name = 'agent-studio-model-usage';
  private readonly threadOf = new Map<string, string>();
  private readonly stats = new Map<string, CacheStats>();

  constructor() {
    super({ ignoreChain: true, ignoreAgent: true, ignoreRetriever: true, ignoreCustomEvent: true });
  }

  override handleChatModelStart(
    _llm: unknown,
    _messages: unknown,
    runId: string,
    _parent?: string,
    _extra?: unknown,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    const thread = metadata?.thread_id;
    if (thread !== undefined && thread !== null) this.threadOf.set(runId, String(thread));
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const thread = this.threadOf.get(runId);
    this.threadOf.delete(runId);
    const usage = (output.generations?.[0]?.[0] as { message?: { usage_metadata?: UsageMetadata } } | undefined)?.message?.usage_metadata;
    const d = usage?.input_token_details;
    if (thread && usage && d && (d.cache_read !== undefined || d.cache_creation !== undefined)) {
      this.stats.set(thread, { input_tokens: usage.input_tokens ?? 0, cache_read_tokens: d.cache_read ?? 0, cache_creation_tokens: d.cache_creation ?? 0 });
    }
  }

  override handleLLMError(_err: unknown, runId: string): void {
    this.threadOf.delete(runId);
  }

  /** The last model call's cache usage on this thread since the last take, if any. */
  take(threadId: string): CacheStats | undefined {
    const s = this.stats.get(threadId);
    this.stats.delete(threadId);
    return s;
  }
}

const KEY = Symbol.for('agent-studio.model-usage');

export function modelUsage(): ModelUsageHandler {
  const g = globalThis as unknown as Record<symbol, ModelUsageHandler | undefined>;
  return (g[KEY] ??= new ModelUsageHandler());
}
