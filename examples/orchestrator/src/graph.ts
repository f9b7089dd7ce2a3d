// orchestrator: split -> delegate -> answer. Each question goes to the support-desk agent over
// A2A (callAgent: the official client, the runtime's outbound pool, a span per call), in
// parallel under the fan-out cap; the answers are put together. No model: deterministic.
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { AIMessage } from '@langchain/core/messages';
import { AgentState, callAgent, childContextId, emitTrace, fanOut, type AgentContext } from 'agent-studio/sdk';

interface Reply {
  question: string;
  answer: string;
  result: Record<string, unknown> | null;
}

const State = Annotation.Root({
  ...AgentState.spec,
  questions: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }),
  replies: Annotation<Reply[]>({ reducer: (_p, n) => n, default: () => [] }),
});
type S = typeof State.State;

/** One question per sentence ending in ?, ! or . (at most 5). */
export function splitQuestions(text: string): string[] {
  return text
    .split(/(?<=[?!.])\s+/)
    .map((q) => q.trim())
    .filter(Boolean)
    .slice(0, 5);
}

export function createGraph(ctx: AgentContext) {
  const supportDesk = ctx.env.SUPPORT_DESK_URL || 'http://127.0.0.1:8080/';

  const split = async (state: S, config: LangGraphRunnableConfig) => {
    const questions = splitQuestions(state.request?.text ?? '');
    emitTrace(config, 'routing', { questions: questions.length, to: supportDesk });
    return { questions };
  };

  // Each question in its own child conversation (parallel tasks never share a thread), the
  // same one on every turn of this conversation.
  const delegate = async (state: S) => {
    const contextId = state.request?.contextId ?? 'none';
    const replies = await fanOut(
      state.questions,
      async (question, i): Promise<Reply> => {
        const r = await callAgent(ctx, supportDesk, question, { contextId: childContextId(`${contextId}#${i}`, supportDesk), label: 'support-desk', timeoutMs: 30_000 });
        return { question, answer: r.state === 'completed' ? r.text : (r.question ?? ''), result: r.data[0] ?? null };
      },
      { label: (_q, i) => `q${i + 1}` },
    );
    return { replies };
  };

  const answer = async (state: S) => {
    const text = state.replies.length
      ? state.replies.map((r) => r.answer).join('\n\n')
      : 'Ask me one or more questions about your orders, refunds or account.';
    return {
      messages: [new AIMessage(text)],
      response: { text, data: { delegated_to: supportDesk, replies: state.replies } },
    };
  };

  return new StateGraph(State)
    .addNode('split', split)
    .addNode('delegate', delegate)
    .addNode('answer', answer)
    .addEdge(START, 'split')
    .addEdge('split', 'delegate')
    .addEdge('delegate', 'answer')
    .addEdge('answer', END);
}
