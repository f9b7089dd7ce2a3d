// memory/ owns what a thread remembers: the working-memory window and caps (window.ts), the
// long-term summary fold and its summarizer (here), and the thread's messages (messages.ts).
// Storage itself is store/.
//
// Long-term memory (spec 2.3 `summarize`): once a thread holds more than
// summarize_threshold messages, the older ones (all but the newest window_size) are folded
// into a running summary kept in persistent memory, and removed from the thread.
import { HumanMessage, RemoveMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { openAiClientOptions, openAiConfigured } from '../../../sdk/model.ts';
import type { ModelEnvironment, ModelSettings } from '../../../sdk/model.ts';

export const SUMMARY_KEY = 'summary';

export type Summarizer = (previous: string | null, messages: BaseMessage[], signal: AbortSignal) => Promise<string>;

function line(m: BaseMessage): string {
  const who = m._getType() === 'human' ? 'user' : m._getType() === 'ai' ? 'agent' : m._getType();
  return `${who}: ${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`;
}

/** The model summarises when one is configured; offline, a deterministic digest. */
export function createSummarizer(env: Record<string, string>, model: ModelSettings, fetch?: ModelEnvironment['fetch']): Summarizer {
  if (!openAiConfigured(env)) {
    return async (previous, messages) => {
      const digest = [previous, ...messages.map((m) => line(m).slice(0, 200))].filter(Boolean).join('\n');
      return digest.length > 4000 ? digest.slice(digest.length - 4000) : digest;
    };
  }
  const chat = new ChatOpenAI({ ...openAiClientOptions({ env, model, fetch }), temperature: 0 });
  return async (previous, messages, signal) => {
    const res = await chat.invoke(
      [
        new SystemMessage(
          'Summarize the conversation below for your own memory: keep names, order numbers, decisions and open questions. At most 8 sentences.',
        ),
        new HumanMessage(`${previous ? `Earlier summary:\n${previous}\n\n` : ''}Conversation:\n${messages.map(line).join('\n')}`),
      ],
      { signal },
    );
    return typeof res.content === 'string' ? res.content : JSON.stringify(res.content);
  };
}

export interface FoldPlan {
  removals: RemoveMessage[];
  folded: BaseMessage[];
}

export function planFold(messages: BaseMessage[], windowSize: number, threshold: number): FoldPlan | null {
  if (messages.length <= threshold) return null;
  const folded = messages.slice(0, Math.max(0, messages.length - windowSize)).filter((m) => m.id);
  if (folded.length === 0) return null;
  return { folded, removals: folded.map((m) => new RemoveMessage({ id: m.id! })) };
}
