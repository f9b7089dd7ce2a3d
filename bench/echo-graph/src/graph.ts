// One node, no model, no evaluators: the smallest graph the runtime can serve.
import { StateGraph } from '@langchain/langgraph';
import { AgentState, type AgentStateType } from 'agent-studio/sdk';

export const graph = new StateGraph(AgentState)
  .addNode('echo', async (s: AgentStateType) => ({ response: { text: s.request?.text ?? '' } }))
  .addEdge('__start__', 'echo')
  .addEdge('echo', '__end__');
