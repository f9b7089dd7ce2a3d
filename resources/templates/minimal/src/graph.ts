// __AGENT_NAME__: understand -> answer.
// Offline, a scripted model streams the drafted answer back; set MODEL_PROVIDER (openai,
// anthropic or gemini) with its key and model (see .env.example) to answer with a real model.
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { AIMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { AgentState, createChatModel, emitTrace, type AgentContext } from 'agent-studio/sdk';

/** The id a DataPart names in `data.schema` to follow contracts/request.schema.json. */
const REQUEST_SCHEMA = '__AGENT_NAME__.request/1';
const DRAFT_MARKER = 'Draft answer:\n';

const State = Annotation.Root({
  ...AgentState.spec,
  topic: Annotation<string>({ reducer: (_prev, next) => next, default: () => '' }),
  urgency: Annotation<string>({ reducer: (_prev, next) => next, default: () => 'normal' }),
});
type S = typeof State.State;

/** Offline, the "model" hands back the draft it was asked to phrase. */
function scriptedResponder(messages: BaseMessage[]): string {
  const system = messages.find((m) => m._getType() === 'system');
  const content = typeof system?.content === 'string' ? system.content : '';
  const at = content.indexOf(DRAFT_MARKER);
  return at >= 0 ? content.slice(at + DRAFT_MARKER.length).trim() : 'How can I help?';
}

export function createGraph(ctx: AgentContext) {
  const model = createChatModel(ctx, scriptedResponder);

  // Reads the request: a DataPart following the contract, else the message text.
  const understand = async (state: S, config: LangGraphRunnableConfig) => {
    const request = state.request;
    const structured = request?.data.find((d) => d.schema === REQUEST_SCHEMA);
    const topic = typeof structured?.topic === 'string' ? structured.topic : request?.text.trim() || 'your message';
    const urgency = typeof structured?.urgency === 'string' ? structured.urgency : 'normal';
    emitTrace(config, 'understood', { topic, urgency, structured: Boolean(structured) });
    return { topic, urgency };
  };

  // Writes the answer: text (streamed from the model) and a structured result.
  const answer = async (state: S, config: LangGraphRunnableConfig) => {
    const draft = `You asked about "${state.topic}" (urgency: ${state.urgency}). I am a new agent: edit src/graph.ts to teach me more.`;
    const history = state.messages.slice(-ctx.memory.windowSize);
    const reply = await model.invoke([new SystemMessage(`${DRAFT_MARKER}${draft}`), ...history], config);
    const text = typeof reply.content === 'string' ? reply.content : draft;
    return {
      messages: [new AIMessage(text)],
      response: { text, data: { topic: state.topic, urgency: state.urgency } },
    };
  };

  return new StateGraph(State)
    .addNode('understand', understand)
    .addNode('answer', answer)
    .addEdge(START, 'understand')
    .addEdge('understand', 'answer')
    .addEdge('answer', END);
}
