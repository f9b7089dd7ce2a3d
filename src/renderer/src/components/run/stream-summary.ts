// The line under a run's final output about the chunks it streamed live.
import type { RunStatus } from '../../../../shared/playground.ts';

/** What became of the chunks a run streamed: only a run with a final answer (completed, or
 * asking for input) has a stored answer that replaces them; any other end keeps them as the
 * partial text shown above (docs/playground-api.md "Tagged parts"). */
export function streamSummary(count: number, status: RunStatus | null): string {
  const chunks = `${count} chunk${count === 1 ? '' : 's'}`;
  if (status === 'completed' || status === 'input_required') return `Streamed live as ${chunks}; the stored final answer replaces them.`;
  return `Streamed live as ${chunks} before the run ended${status ? ` ${status}` : ''}; it has no final answer.`;
}
