import { describe, expect, it } from 'vitest';
import type { DatasetCase } from '../../../shared/datasets.ts';
import { loosened, suggestions } from './loosen.ts';

const made: DatasetCase = {
  id: 'refund-ord-12345',
  input: { text: 'I want a refund for order ORD-12345' },
  expected: {
    output: {
      status: 'completed',
      parts: [
        { kind: 'text', text: 'Good news: your refund is approved.\nIt takes five days.' },
        { kind: 'data', data: { skill: 'refunds', verdict: 'approved', amount: 12, items: [1], note: null } },
      ],
    },
    assertions: [{ type: 'matches_reference' }],
  },
};

describe('loosening a reference into assertions', () => {
  it('proposes the text’s first line and each plain field of the data', () => {
    expect(suggestions(made).map((c) => c.assertion)).toEqual([
      { type: 'text_contains', value: 'Good news: your refund is approved.' },
      { type: 'json_path_equals', path: '$.skill', value: 'refunds' },
      { type: 'json_path_equals', path: '$.verdict', value: 'approved' },
      { type: 'json_path_equals', path: '$.amount', value: 12 },
    ]);
  });

  it('replaces the exact reference check unless asked to keep it, and keeps the reference and other assertions', () => {
    const chosen = [{ type: 'text_contains' as const, value: 'refund' }];
    const withLatency: DatasetCase = {
      ...made,
      expected: { ...made.expected, assertions: [{ type: 'matches_reference' }, { type: 'latency_under', ms: 500 }] },
    };
    expect(loosened(withLatency, chosen, false).expected).toEqual({
      output: made.expected!.output,
      assertions: [{ type: 'latency_under', ms: 500 }, ...chosen],
    });
    expect(loosened(made, chosen, true).expected?.assertions).toEqual([{ type: 'matches_reference' }, ...chosen]);
  });

  it('proposes nothing for a case without a reference', () => {
    expect(suggestions({ id: 'x', input: { text: 'hi' } })).toEqual([]);
  });
});
