// The pure mapping between A2A and the agent's request/response (spec 2.5, 4.1 rule 6): parts
// in, parts out, the default schema key and the artifact name. No I/O. (The thread's messages
// themselves: memory/messages.ts.)
import { randomUUID } from 'node:crypto';
import type { Message, Part } from '@a2a-js/sdk';
import type { AgentFile, AgentRequest, AgentResponse } from '../../../sdk/state.ts';
import type { Generation } from '../project/registry.ts';

export const DEFAULT_ARTIFACT_NAME = 'agent-response';
/** The one artifact of a task: streamed chunks and the complete answer share its id. */
export const ARTIFACT_ID = 'response';

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
