// The working-memory policy of one invocation, as pure functions: how many messages stay in
// the checkpointed state, and the optional input-size caps of spec 8 (MAX_HISTORY_TOKENS).
import { RemoveMessage, type BaseMessage } from '@langchain/core/messages';
import type { AgentRequest } from '../../../sdk/state.ts';
import { messageText } from './messages.ts';
import type { MemoryConfig } from '../project/registry.ts';

/** Messages kept in the checkpointed working state (at least; 2 x window_size if larger). */
export const WORKING_MEMORY_MAX = 40;

type Emit = (name: string, fields: Record<string, unknown>) => void;

/** Rough token estimate (4 characters a token) for the optional input-size caps (spec 8). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** Keeps the checkpointed working memory bounded so a turn's cost does not grow with the
 * thread: beyond WORKING_MEMORY_MAX (or twice window_size) the oldest messages leave the
 * state. They stay in the transcript; with summarize on, the fold handles it instead. */
export function boundWorkingMemory(messages: BaseMessage[], memory: Pick<MemoryConfig, 'summarize' | 'window_size'>): RemoveMessage[] {
  if (memory.summarize) return [];
  const cap = Math.max(WORKING_MEMORY_MAX, 2 * memory.window_size);
  if (messages.length <= cap) return [];
  return messages
    .slice(0, messages.length - cap)
    .filter((m) => m.id)
    .map((m) => new RemoveMessage({ id: m.id! }));
}

/** spec 8: optional input cap; events only when MAX_HISTORY_TOKENS is set. */
export function capInput(request: AgentRequest, limit: number, emit: Emit): void {
  const tokens = estimateTokens(request.text);
  emit('input_cap.measured', { tokens, limit });
  if (tokens <= limit) return;
  request.text = request.text.slice(0, limit * 4);
  emit('input_cap.truncated', { tokens_before: tokens, tokens_after: estimateTokens(request.text), limit });
}

/** Keeps the newest messages that fit the token budget; older ones leave the thread. A cold
 * thread gets the kept messages to seed it; a warm one the removals of the dropped ones. */
export function capHistory(messages: BaseMessage[], limit: number, emit: Emit, cold: boolean): { messages: BaseMessage[] } {
  const total = messages.reduce((n, m) => n + estimateTokens(messageText(m)), 0);
  emit('history.measured', { tokens: total, messages: messages.length, limit });
  if (total <= limit) return { messages: cold ? messages : [] };
  let budget = limit;
  let keepFrom = messages.length;
  while (keepFrom > 0 && budget - estimateTokens(messageText(messages[keepFrom - 1])) >= 0) {
    budget -= estimateTokens(messageText(messages[keepFrom - 1]));
    keepFrom -= 1;
  }
  const dropped = messages.slice(0, keepFrom);
  emit('history.truncated', { removed_messages: dropped.length, tokens_before: total, tokens_after: limit - budget, limit });
  if (cold) return { messages: messages.slice(keepFrom) };
  return { messages: dropped.filter((m) => m.id).map((m) => new RemoveMessage({ id: m.id! })) };
}
