// Evaluators score every completed answer, in manifest order; the studio shows the scores.
import type { AgentResponse } from 'agent-studio/sdk';

/** Did the answer carry both a text and a structured result? */
export function answered({ response }: { response: AgentResponse }) {
  const hasText = Boolean(response.text?.trim());
  const hasData = Boolean(response.data && Object.keys(response.data).length > 0);
  return {
    score: (hasText ? 0.5 : 0) + (hasData ? 0.5 : 0),
    reason: `${hasText ? 'text' : 'no text'}, ${hasData ? 'structured result' : 'no structured result'}`,
    node: 'answer',
  };
}
