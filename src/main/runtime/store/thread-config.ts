// The thread a LangGraph call is about, read from its RunnableConfig (both checkpointers).
import type { RunnableConfig } from '@langchain/core/runnables';

export function threadIdOf(config: RunnableConfig): string | undefined {
  const id = config.configurable?.thread_id;
  return id === undefined || id === null || id === '' ? undefined : String(id);
}

export function requireThreadId(config: RunnableConfig, op: string): string {
  const id = threadIdOf(config);
  if (id === undefined) {
    throw new Error(`${op}: the RunnableConfig has no configurable.thread_id; pass one so the checkpointer knows which thread to persist`);
  }
  return id;
}
