// Consumes one invocation's LangGraph stream: node updates (the response, the exit node's
// answer, an interrupt), and the exit node's model tokens for streaming clients. Node spans,
// fan-out branches and the nodes' trace events do not come through the stream: the node
// wrappers and the SDK tell the turn's hook directly (spans.ts, D-106); a trace event written
// to the custom stream outside that hook (`__trace`) is still traced. Items come as
// [namespace, mode, payload] with `subgraphs: true`.
import type { BaseMessage } from '@langchain/core/messages';
import type { AgentResponse } from '../../../sdk/state.ts';
import { lastAiText } from '../memory/messages.ts';
import { SUBGRAPH_NODE_SEPARATOR } from '../../../shared/breakpoints.ts';
import { pathOfNamespace } from './subgraphs.ts';

type Emit = (name: string, fields: Record<string, unknown>) => void;

export interface StreamOptions {
  exitNode: string;
  /** Trace events written to the custom stream by the nodes. */
  emit: Emit;
  /** A token of the exit node's answer (only with the `messages` stream mode). */
  onToken: (text: string) => void;
}

export interface StreamOutcome {
  interrupt: { value?: unknown } | undefined;
  /** The last `response` a node of the root graph wrote. */
  response: AgentResponse | null;
  /** Text of the last AI message the exit node returned: the answer when no response.text. */
  exitText: string | undefined;
  /** The graph stopped at a static interrupt (a breakpoint: `__interrupt__` with no value). */
  paused: boolean;
  /** The last node that wrote an update (a subgraph's as `inner:lookup`). */
  lastNode: string | null;
}

export async function consumeGraphStream(stream: AsyncIterable<unknown>, o: StreamOptions): Promise<StreamOutcome> {
  const out: StreamOutcome = { interrupt: undefined, response: null, exitText: undefined, paused: false, lastNode: null };
  for await (const item of stream) {
    // [namespace, mode, payload] with `subgraphs: true`, else [mode, payload].
    const [namespace, mode, payload] =
      (item as unknown[]).length === 3 ? (item as [string[], string, any]) : ([[], ...(item as [string, any])] as [string[], string, any]);
    const root = namespace.length === 0;
    if (mode === 'updates') {
      if (!root) {
        // A subgraph's updates reach the root through its parent node; its last node is where a
        // breakpoint after a subgraph node paused (`inner:lookup`).
        const node = Object.keys(payload ?? {}).find((n) => n !== '__interrupt__');
        if (node) out.lastNode = `${pathOfNamespace(namespace.join('|'))}${SUBGRAPH_NODE_SEPARATOR}${node}`;
        continue;
      }
      if (payload?.__interrupt__?.length) out.interrupt ??= payload.__interrupt__[0];
      else if (payload?.__interrupt__) out.paused = true;
      for (const [node, update] of Object.entries(payload ?? {})) {
        if (node !== '__interrupt__') out.lastNode = node;
        if (!update || typeof update !== 'object') continue;
        if ('response' in update) out.response = (update as { response: AgentResponse | null }).response;
        if (node === o.exitNode) out.exitText = lastAiText((update as { messages?: unknown }).messages) ?? out.exitText;
      }
    } else if (mode === 'custom' && payload && typeof payload === 'object' && payload.__trace) {
      const { name, ...fields } = payload.__trace as { name: string };
      o.emit(name, fields);
    } else if (mode === 'messages') {
      // A model call's namespace names the task that made it: one level for a node of the
      // root graph, more inside a subgraph.
      if (namespace.length > 1) continue;
      const [chunk, md] = payload as [BaseMessage, Record<string, unknown>];
      if (md?.langgraph_node !== o.exitNode || chunk.constructor.name !== 'AIMessageChunk') continue;
      const text = typeof chunk.content === 'string' ? chunk.content : chunk.text; // content blocks (a tool call, text deltas): their text only
      if (text) o.onToken(text);
    }
  }
  return out;
}
