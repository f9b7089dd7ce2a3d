// The messages of a thread as LangChain holds them and as the transcript stores them: the
// text of a message, the answer text of an AI message, and the history seed of a cold thread
// (spec 4.1 rule 4). Pure functions, no I/O.
import { AIMessage, HumanMessage, coerceMessageLikeToMessage, type BaseMessage, type BaseMessageLike } from '@langchain/core/messages';
import type { TranscriptMessage } from '../store/types.ts';

export function toTranscript(m: BaseMessage): TranscriptMessage {
  return { role: m._getType() === 'ai' ? 'ai' : 'human', content: messageText(m) };
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

export function messageText(m: BaseMessage): string {
  return typeof m.content === 'string' ? m.content : JSON.stringify(m.content);
}

/** spec 4.1 rule 4: only user/agent items (A2A messages) with TextParts, malformed ones skipped, the last N kept. */
export function historySeed(history: unknown, max: number): BaseMessage[] {
  if (!Array.isArray(history)) return [];
  const out: BaseMessage[] = [];
  for (const item of history) {
    if (!item || typeof item !== 'object') continue;
    const { role, parts } = item as { role?: unknown; parts?: unknown };
    if ((role !== 'user' && role !== 'agent') || !Array.isArray(parts)) continue;
    const text = parts
      .filter(
        (p): p is { kind: 'text'; text: string } =>
          !!p && typeof p === 'object' && (p as { kind?: unknown }).kind === 'text' && typeof (p as { text?: unknown }).text === 'string',
      )
      .map((p) => p.text)
      .join('\n');
    if (!text) continue;
    out.push(role === 'user' ? new HumanMessage(text) : new AIMessage(text));
  }
  return out.slice(-max);
}
