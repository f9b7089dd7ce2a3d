// What every agent graph shares with the runtime: the request it receives, the response
// it produces, and the conversation messages. Projects extend AgentState with their own keys.
import { Annotation, MessagesAnnotation } from '@langchain/langgraph';
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { traceHookOf } from './trace-hook.ts';

/** A file as the graph sees it: exactly one of uri or bytes (base64). */
export interface AgentFile {
  name?: string;
  mimeType?: string;
  uri?: string;
  bytes?: string;
}

/** The current A2A message, unpacked for the graph. */
export interface AgentRequest {
  /** All TextParts joined with blank lines. */
  text: string;
  /** Every DataPart's `data`, in order (its `schema` key names the contract). */
  data: Record<string, unknown>[];
  files: AgentFile[];
  /** `params.metadata` minus reserved keys: userId, observation labels, ... */
  metadata: Record<string, unknown>;
  contextId: string;
  taskId: string;
  /** Long-term memory of the thread (a running summary of folded messages), when any. */
  memory?: { summary?: string };
}

/** What the graph answers. The runtime turns it into the A2A artifact (spec 4.1). */
export interface AgentResponse {
  text?: string;
  /** The structured result; goes out as the first DataPart. */
  data?: Record<string, unknown>;
  /** Further DataParts. */
  extraData?: Record<string, unknown>[];
  files?: AgentFile[];
  /** Artifact name chosen by this result (highest precedence, spec 4.1 rule 6). */
  artifactName?: string;
}

export const AgentState = Annotation.Root({
  ...MessagesAnnotation.spec,
  request: Annotation<AgentRequest | null>({ reducer: (_prev, next) => next, default: () => null }),
  response: Annotation<AgentResponse | null>({ reducer: (_prev, next) => next, default: () => null }),
});

export type AgentStateType = typeof AgentState.State;

/** A trace event emitted by project code (routing, guardrail, ...); spec 6.3. The
 * runtime stamps it with the invocation's ids and sends it to every sink. */
export function emitTrace(config: LangGraphRunnableConfig | undefined, name: string, fields: Record<string, unknown> = {}): void {
  // In a runtime turn, straight to the turn's tracer, in order with the node's span (trace-hook.ts).
  const hook = traceHookOf(config);
  if (hook) hook.trace(name, fields);
  else config?.writer?.({ __trace: { name, ...fields } });
}
