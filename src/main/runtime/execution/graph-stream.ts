// Consumes one invocation's LangGraph stream: node updates (the response, the exit node's
// answer, an interrupt), trace events the nodes write (`emitTrace`), node spans (the `tasks`
// mode, fan-out branches and node failures on the custom stream; spans.ts), and the exit
// node's model tokens for streaming clients. Items come as [namespace, mode, payload]
// (`subgraphs: true`), so a subgraph's nodes are spans too.
import type { BaseMessage } from '@langchain/core/messages';
import type { AgentResponse } from '../../../sdk/state.ts';
import { lastAiText } from '../memory/messages.ts';
import { NODE_FAILURE_KEY, type NodeFailure } from '../project/node-failures.ts';
import { BRANCH_KEY, type BranchSignal, type SpanTracker } from './spans.ts';
import { SUBGRAPH_NODE_SEPARATOR } from '../../../shared/breakpoints.ts';
import { pathOfNamespace } from './subgraphs.ts';

type Emit = (name: string, fields: Record<string, unknown>) => void;

export interface StreamOptions {
  exitNode: string;
  /** Trace events written by the nodes. */
  emit: Emit;
  spans: SpanTracker;
  /** A token of the exit node's answer (only with the `messages` stream mode). */
  onToken: (text: string) => void;
  /** Filled with milliseconds per node name, also when the graph throws (STAGE_TIMING). */
  latency: Record<string, number>;
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
  const stageStart = new Map<string, number>();
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
    } else if (mode === 'tasks') {
      o.spans.task(namespace, payload);
      if (!root) continue;
      if (!('input' in payload)) {
        const t0 = stageStart.get(payload.id);
        if (t0 !== undefined) o.latency[payload.name] = Math.round((o.latency[payload.name] ?? 0) + performance.now() - t0);
      } else stageStart.set(payload.id, performance.now());
    } else if (mode === 'custom' && payload && typeof payload === 'object') {
      if (payload.__trace) {
        const { name, ...fields } = payload.__trace as { name: string };
        o.emit(name, fields);
      } else if (payload[NODE_FAILURE_KEY]) {
        const f = payload[NODE_FAILURE_KEY] as NodeFailure & { error: unknown };
        o.spans.nodeFailure(f.taskId, f.error, f.aborted);
      } else if (payload[BRANCH_KEY]) {
        o.spans.branch(payload[BRANCH_KEY] as BranchSignal);
      }
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
