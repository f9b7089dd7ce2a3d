import { describe, expect, it } from 'vitest';
import { callCost, DEFAULT_PRICES, findPrice, priceCall, priceTable } from './pricing.ts';
import { foldUsage, sumTotals, usageDelta } from './usage.ts';

const usage = (input: number, output: number, cache_read = 0, cache_creation = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: cache_read,
  cache_creation_tokens: cache_creation,
});

describe('price math', () => {
  it('prices input and output per million tokens', () => {
    // gpt-4o-mini: $0.15 in, $0.60 out per million.
    expect(callCost(DEFAULT_PRICES['gpt-4o-mini']!, usage(1_000_000, 1_000_000))).toBeCloseTo(0.75, 10);
    expect(callCost({ input: 2, output: 8 }, usage(1500, 500))).toBe(0.007);
  });

  it('takes cached reads and cache writes out of the input and prices them at their own rates', () => {
    // 1000 prompt tokens of which 600 read from the cache and 200 written to it.
    const price = { input: 3, output: 15, cachedInput: 0.3, cacheWrite: 3.75 };
    expect(callCost(price, usage(1000, 100, 600, 200))).toBeCloseTo((200 * 3 + 600 * 0.3 + 200 * 3.75 + 100 * 15) / 1e6, 12);
    // without cache prices, cached tokens cost the input price
    expect(callCost({ input: 1, output: 1 }, usage(1000, 0, 600))).toBe(0.001);
  });

  it('finds a dated or versioned name by the longest entry it starts with, the project first', () => {
    const table = priceTable({ 'gpt-4o': { input: 100, output: 100 } });
    expect(findPrice(table, 'gpt-4o-2024-08-06')).toMatchObject({ key: 'gpt-4o', source: 'project' });
    expect(findPrice(table, 'gpt-4o-mini-2024-07-18')).toMatchObject({ key: 'gpt-4o-mini', source: 'default' });
    expect(findPrice(table, 'claude-sonnet-4-5-20250929')).toMatchObject({ key: 'claude-sonnet-4-5', source: 'default' });
    expect(findPrice(table, 'models/gemini-2.5-flash')).toMatchObject({ key: 'gemini-2.5-flash' });
    expect(findPrice(table, 'gpt-4ox')).toBeNull();
    expect(findPrice(table, 'my-local-llama')).toBeNull();
  });

  it('prices by the answered model first; an unknown model has no cost, not 0', () => {
    const table = priceTable({});
    expect(priceCall(table, { request_model: 'gpt-4o', response_model: 'gpt-4o-mini-2024-07-18', usage: usage(1_000_000, 0) })).toEqual({
      cost_usd: 0.15,
      priced_as: 'gpt-4o-mini',
      price_source: 'default',
    });
    expect(priceCall(table, { request_model: 'llama3', response_model: null, usage: usage(10, 10) }).cost_usd).toBeNull();
    expect(priceCall(table, { request_model: 'gpt-4o', response_model: null, usage: null }).cost_usd).toBeNull();
  });
});

describe('usage of a run', () => {
  const call = (fields: Record<string, unknown>) => ({ name: 'model.call', data: { status: 'completed', ...fields } });
  const events = [
    call({ span_id: 'c1', parent_span_id: 't1', node: 'plan', request_model: 'm', usage: usage(100, 10), cost_usd: 0.001 }),
    call({
      span_id: 'c2',
      parent_span_id: 't2',
      node: 'fan',
      branch_span_id: 't2/0',
      branch: 'fan[a]',
      request_model: 'm',
      usage: usage(100, 20),
      cost_usd: 0.002,
    }),
    call({
      span_id: 'c3',
      parent_span_id: 't2',
      node: 'fan',
      branch_span_id: 't2/1',
      branch: 'fan[b]',
      request_model: 'x',
      usage: usage(50, 5),
      cost_usd: null,
    }),
    call({ span_id: 'c4', parent_span_id: null, node: null, request_model: 'scripted', usage: null }),
    { name: 'span.start', data: {} },
  ];

  it('sums per node to the run, branches as parts of their node, unpriced calls named', () => {
    const u = foldUsage('run_1', events);
    expect(u.totals).toMatchObject({
      calls: 4,
      input_tokens: 250,
      output_tokens: 35,
      total_tokens: 285,
      cost_usd: 0.003,
      unpriced_calls: 1,
      unpriced_models: ['x'],
      calls_without_usage: 1,
    });
    const nodes = u.spans.filter((s) => s.kind !== 'branch');
    expect(sumTotals(nodes).total_tokens).toBe(u.totals.total_tokens);
    expect(sumTotals(nodes).cost_usd).toBe(u.totals.cost_usd);
    const fan = u.spans.find((s) => s.span_id === 't2')!;
    expect(fan).toMatchObject({ node: 'fan', kind: 'node', total_tokens: 175, cost_usd: 0.002, unpriced_models: ['x'] });
    expect(u.spans.find((s) => s.span_id === 't2/1')).toMatchObject({ node: 'fan[b]', kind: 'branch', total_tokens: 55, cost_usd: null });
    expect(u.spans.find((s) => s.span_id === 't1')!.token_share).toBeCloseTo(110 / 285, 10);
    expect(u.spans.find((s) => s.kind === 'outside')).toMatchObject({ calls: 1, calls_without_usage: 1 });
  });

  it('says the delta right minus left, and none when a side has no cost', () => {
    const a = foldUsage('a', events.slice(0, 1)).totals;
    const b = foldUsage('b', events.slice(0, 2)).totals;
    expect(usageDelta(a, b)).toMatchObject({ total_tokens_delta: 120, cost_usd_delta: 0.002 });
    expect(usageDelta(a, foldUsage('c', [events[2]!]).totals).cost_usd_delta).toBeNull();
  });
});
