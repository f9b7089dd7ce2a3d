// cache_stats (spec 6.3): the model's prompt-cache usage, read where a model call ends.
import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { UsageMetadata } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';

/** cache_stats (spec 6.3): the model's usage, read where every model call ends. A handler
 * instance that ignores chain events, so LangChain neither wraps it per runnable nor calls
 * it for every node. */
export class UsageHandler extends BaseCallbackHandler {
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
