// support-desk: guardrail -> router -> skills (in parallel) -> respond.
// Works offline with a scripted model; set MODEL_PROVIDER (openai, anthropic or gemini) with
// that provider's key and model to answer with a real one (.env.example).
import { Annotation, END, START, StateGraph, type LangGraphRunnableConfig } from '@langchain/langgraph';
import { AIMessage, SystemMessage, type BaseMessage } from '@langchain/core/messages';
import { AgentError, AgentState, createChatModel, emitTrace, fanOut, type AgentContext, type AgentRequest } from 'agent-studio/sdk';
import { helpCentreSkill, orderStatusSkill, refundSkill, type Intent, type SkillResult } from './skills.ts';

const State = Annotation.Root({
  ...AgentState.spec,
  intents: Annotation<Intent[]>({ reducer: (_p, n) => n, default: () => [] }),
  results: Annotation<SkillResult[]>({ reducer: (_p, n) => n, default: () => [] }),
});
type S = typeof State.State;

const BLOCKED = [/ignore (all )?previous instructions/i, /\b(credit card number|cvv)\b/i];

export function route(request: Pick<AgentRequest, 'text' | 'data'>): { intents: Intent[]; why: string } {
  const ticket = request.data.find((d) => d.schema === 'support.ticket/1');
  if (ticket && typeof ticket.topic === 'string') return { intents: [ticket.topic as Intent], why: 'ticket topic' };
  const t = request.text.toLowerCase();
  const intents: Intent[] = [];
  if (/refund|money back|return (it|my|the)/.test(t)) intents.push('refund');
  if (/where is|track|status|arriv|when will/.test(t)) intents.push('order_status');
  if (/\bhow\b|\?|help|policy|password|address|gift/.test(t) && !intents.includes('order_status')) intents.push('question');
  if (intents.length === 0 && t.trim()) intents.push('question');
  return { intents, why: intents.length ? 'keywords' : 'empty request' };
}

const DRAFT_MARKER = 'Draft answer:\n';

/** Offline, the "model" hands back the draft it was asked to rewrite. */
function scriptedResponder(messages: BaseMessage[]): string {
  const system = messages.find((m) => m._getType() === 'system');
  const content = typeof system?.content === 'string' ? system.content : '';
  const at = content.indexOf(DRAFT_MARKER);
  return at >= 0 ? content.slice(at + DRAFT_MARKER.length).trim() : 'How can I help you today?';
}

export function draftAnswer(results: SkillResult[]): string {
  if (results.length === 0) return 'Hello! I can help with refunds, order tracking and questions about our shop. What can I do for you?';
  return results
    .map((r) => {
      switch (r.skill) {
        case 'refunds':
          return r.verdict === 'approved'
            ? `Good news: your refund of ${r.amount.toFixed(2)} EUR for order ${r.orderId} is approved, because it was ${r.reason}. The money is back on your card within 5 working days.`
            : `I am sorry, order ${r.orderId} cannot be refunded: ${r.reason}.`;
        case 'order-status':
          return r.status === 'delivered'
            ? `Order ${r.orderId} has been delivered.`
            : `Order ${r.orderId} is ${r.status}${r.carrier ? ` with ${r.carrier}` : ''}${r.eta ? ` and should arrive by ${r.eta}` : ''}.`;
        case 'help-centre':
          return r.results.length
            ? `From our help centre: ${r.results.map((a) => `${a.title} (${a.id}): ${a.summary}`).join(' ')}`
            : 'I found no help-centre article about that. Could you tell me a bit more?';
      }
    })
    .join(' ');
}

export function createGraph(ctx: AgentContext) {
  const model = createChatModel(ctx, scriptedResponder);
  const skills = { refund: refundSkill, order_status: orderStatusSkill, question: helpCentreSkill } as const;

  const guardrail = async (state: S, config: LangGraphRunnableConfig) => {
    const text = state.request?.text ?? '';
    const hit = BLOCKED.find((re) => re.test(text));
    emitTrace(config, 'guardrail', { policy: 'support-desk/basic', verdict: hit ? 'blocked' : 'pass' });
    if (hit) {
      throw new AgentError({ code: 'GUARDRAIL_BLOCKED', reason: 'unsafe_request', message: 'I cannot help with that request.' });
    }
    return {};
  };

  const router = async (state: S, config: LangGraphRunnableConfig) => {
    const { intents, why } = route(state.request ?? { text: '', data: [] });
    emitTrace(config, 'routing', { intents, why, skills: intents.map((i) => ({ refund: 'refunds', order_status: 'order-status', question: 'help-centre' })[i]) });
    return { intents };
  };

  // Independent skills run in parallel, capped by DEFAULT_FANOUT_MAX_CONCURRENCY.
  const runSkills = async (state: S) => {
    const request = state.request!;
    const results = await fanOut(state.intents, (intent) => skills[intent](ctx, request), { label: (intent) => intent });
    return { results };
  };

  const respond = async (state: S, config: LangGraphRunnableConfig) => {
    const draft = draftAnswer(state.results);
    const window = state.messages.slice(-ctx.memory.windowSize);
    const summary = state.request?.memory?.summary;
    const memory = summary ? `Summary of the earlier conversation:\n${summary}\n` : '';
    const system = new SystemMessage(`${ctx.prompts.system ?? ''}\n${memory}${DRAFT_MARKER}${draft}`);
    const answer = await model.invoke([system, ...window], config);
    const text = typeof answer.content === 'string' ? answer.content : draft;
    const refund = state.results.find((r) => r.skill === 'refunds');
    return {
      messages: [new AIMessage(text)],
      response: {
        text,
        data: {
          intents: state.intents,
          ...(refund && refund.skill === 'refunds' ? { verdict: refund.verdict, orderId: refund.orderId } : {}),
          results: state.results,
        },
      },
    };
  };

  return new StateGraph(State)
    .addNode('guardrail', guardrail)
    .addNode('router', router)
    .addNode('skills', runSkills)
    .addNode('respond', respond)
    .addEdge(START, 'guardrail')
    .addEdge('guardrail', 'router')
    // Labelled branches: the studio's graph shows why each edge is taken.
    .addConditionalEdges('router', (s: S) => (s.intents.length ? 'has intents' : 'nothing to route'), { 'has intents': 'skills', 'nothing to route': 'respond' })
    .addEdge('skills', 'respond')
    .addEdge('respond', END);
}
