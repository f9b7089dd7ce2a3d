import { describe, expect, it } from 'vitest';
import { streamSummary } from './stream-summary.ts';

describe('the streamed-chunks line under a run output', () => {
  it('promises a stored final answer only for a run that has one', () => {
    expect(streamSummary(3, 'completed')).toBe('Streamed live as 3 chunks; the stored final answer replaces them.');
    expect(streamSummary(1, 'input_required')).toBe('Streamed live as 1 chunk; the stored final answer replaces them.');
    expect(streamSummary(1, 'cancelled')).toBe('Streamed live as 1 chunk before the run ended cancelled; it has no final answer.');
    expect(streamSummary(4, 'interrupted')).not.toContain('final answer replaces');
    expect(streamSummary(4, 'failed')).not.toContain('final answer replaces');
  });
});
