// The pure mapping between A2A and the agent's request/response (spec 2.5, 4.1 rules 4 and 6):
// parts in, parts out, the history seed, the default schema key, the artifact name, and the
// answer text of an AI message. No I/O.
import { randomUUID } from 'node:crypto';
import type { Message, Part } from '@a2a-js/sdk';
import { AIMessage, HumanMessage, coerceMessageLikeToMessage, type BaseMessage, type BaseMessageLike } from '@langchain/core/messages';
import type { AgentFile, AgentRequest, AgentResponse } from '../../../sdk/state.ts';
import type { Generation } from '../project/registry.ts';
import type { TranscriptMessage } from '../store/types.ts';

export const DEFAULT_ARTIFACT_NAME = 'agent-response';
/** The one artifact of a task: streamed chunks and the complete answer share its id. */
export const ARTIFACT_ID = 'response';

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

export function responseParts(response: AgentResponse | null): Part[] {
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

export function agentMessage(parts: Part[], taskId: string, contextId: string): Message {
  return { kind: 'message', role: 'agent', messageId: randomUUID(), parts, taskId, contextId };
}
