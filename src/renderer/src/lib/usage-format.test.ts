import { describe, expect, it } from 'vitest';
import { emptyTotals } from '../../../shared/usage.ts';
import { costLabel, formatTokenDelta, formatTokens, formatUsd, usageLine } from './usage-format.ts';

describe('usage format', () => {
  it('keeps small costs readable and never rounds them to $0', () => {
    expect(formatUsd(0.000432)).toBe('$0.000432');
    expect(formatUsd(0.012345)).toBe('$0.0123');
    expect(formatUsd(12.3456)).toBe('$12.35');
    expect(formatTokens(416)).toBe('416');
    expect(formatTokens(12_345)).toBe('12.3k');
    expect(formatTokenDelta(-208)).toBe('-208');
  });

  it('says a model has no price instead of a cost of 0', () => {
    const t = { ...emptyTotals(), calls: 2, total_tokens: 208, unpriced_calls: 2, unpriced_models: ['mystery'] };
    expect(costLabel(t)).toBe('no price for mystery');
    expect(usageLine(t)).toBe('208 tokens · no price for mystery');
    expect(costLabel({ ...t, cost_usd: 0.0001, unpriced_calls: 1 })).toBe('$0.0001 + 1 unpriced call');
  });
});
