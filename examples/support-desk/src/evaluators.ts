// Evaluators run in manifest order on every completed answer (spec 4.1 rule 5).
import type { AgentResponse } from 'agent-studio/sdk';

interface Input {
  response: AgentResponse;
}

/** Did the answer carry both a text and a structured result with at least one finding? */
export function completeness({ response }: Input) {
  const hasText = Boolean(response.text && response.text.length > 20);
  const results = Array.isArray(response.data?.results) ? (response.data!.results as unknown[]) : [];
  const score = (hasText ? 0.5 : 0) + (results.length > 0 ? 0.5 : 0);
  return { score, reason: `${hasText ? 'text' : 'no text'}, ${results.length} result(s)`, scope: 'answer', node: 'respond' };
}

/** A crude tone check; it abstains (score null) on very short answers. */
export function tone({ response }: Input) {
  const text = response.text ?? '';
  if (text.length < 40) return { score: null, reason: 'answer too short to judge' };
  const polite = /please|sorry|good news|thank|happy to|hello/i.test(text);
  return { score: polite ? 1 : 0.6, reason: polite ? 'courteous wording' : 'neutral wording', node: 'respond' };
}
