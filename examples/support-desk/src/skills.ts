// The three skills. Each returns a plain result the respond node turns into an answer.
import { interrupt } from '@langchain/langgraph';
import type { AgentContext, AgentRequest } from 'agent-studio/sdk';
import { ORDERS, REFUND_WINDOW_DAYS, searchArticles, type Article } from './data.ts';

export type Intent = 'refund' | 'order_status' | 'question';

export type SkillResult =
  | { skill: 'refunds'; verdict: 'approved' | 'unsuitable'; orderId: string; amount: number; reason: string }
  | { skill: 'order-status'; orderId: string; status: string; eta?: string; carrier?: string }
  | { skill: 'help-centre'; query: string; results: Pick<Article, 'id' | 'title' | 'summary'>[] };

const ORDER_ID = /\bORD-\d{5}\b/i;
const ORDER_LIKE = /\bORD-[A-Z0-9]*\b/i;

/** The order id from a ticket DataPart or the text. A malformed id is an input error. */
export function findOrderId(ctx: AgentContext, request: Pick<AgentRequest, 'text' | 'data'>): string | null {
  for (const d of request.data) if (typeof d.orderId === 'string') return d.orderId.toUpperCase();
  const m = ORDER_ID.exec(request.text);
  if (m) return m[0].toUpperCase();
  const like = ORDER_LIKE.exec(request.text);
  if (like) ctx.errors.raise('SD-409', `'${like[0]}' is not an order number: they look like ORD-12345.`);
  return null;
}

/** Asks the caller for the order id (A2A input_required) until one is given. */
function requireOrderId(ctx: AgentContext, request: AgentRequest, purpose: string): string {
  let orderId = findOrderId(ctx, request);
  while (!orderId) {
    const answer = interrupt({
      question: `Which order is this about? Please give the order number (like ORD-12345) so I can ${purpose}.`,
      missing: ['orderId'],
    }) as Pick<AgentRequest, 'text' | 'data'>;
    orderId = findOrderId(ctx, answer);
  }
  return orderId;
}

function lookup(ctx: AgentContext, orderId: string) {
  const order = ORDERS[orderId];
  if (!order) ctx.errors.raise('SD-404', `We could not find order ${orderId}. Please check the number on your receipt.`, { orderId });
  return order;
}

export async function refundSkill(ctx: AgentContext, request: AgentRequest): Promise<SkillResult> {
  const orderId = requireOrderId(ctx, request, 'check the refund');
  const order = lookup(ctx, orderId);
  if (order.status !== 'delivered') {
    return { skill: 'refunds', verdict: 'unsuitable', orderId, amount: order.amount, reason: `the order has not been delivered yet (it is ${order.status})` };
  }
  if ((order.deliveredDaysAgo ?? 0) > REFUND_WINDOW_DAYS) {
    return { skill: 'refunds', verdict: 'unsuitable', orderId, amount: order.amount, reason: `it was delivered ${order.deliveredDaysAgo} days ago, beyond the ${REFUND_WINDOW_DAYS}-day refund window` };
  }
  return { skill: 'refunds', verdict: 'approved', orderId, amount: order.amount, reason: `delivered ${order.deliveredDaysAgo} days ago, within the ${REFUND_WINDOW_DAYS}-day window` };
}

export async function orderStatusSkill(ctx: AgentContext, request: AgentRequest): Promise<SkillResult> {
  const orderId = requireOrderId(ctx, request, 'look it up');
  const order = lookup(ctx, orderId);
  return { skill: 'order-status', orderId, status: order.status, eta: order.eta, carrier: order.carrier };
}

export async function helpCentreSkill(_ctx: AgentContext, request: AgentRequest): Promise<SkillResult> {
  const results = searchArticles(request.text).map(({ id, title, summary }) => ({ id, title, summary }));
  return { skill: 'help-centre', query: request.text, results };
}
