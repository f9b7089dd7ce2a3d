import { describe, expect, it } from 'vitest';
import { pricingOf, readPricing, rowsOf, writePricing, type PriceRow } from './pricing-edit.ts';

const MANIFEST = `{
  "name": "cost-agent",
  "skills": [{ "id": "answer", "name": "Answer" }],
  "graph": { "entry": "src/graph.ts", "export": "createGraph" },
  "pricing": { "priced-model": { "input": 1, "output": 2 } }
}
`;

const row = (model: string, input = '', output = '', cachedInput = '', cacheWrite = ''): PriceRow => ({ model, input, output, cachedInput, cacheWrite });

describe('the Prices dialog’s edit of agent.json', () => {
  it('reads the project’s prices as rows', () => {
    const read = readPricing(MANIFEST);
    expect(read).toEqual({ pricing: { 'priced-model': { input: 1, output: 2 } } });
    expect(rowsOf((read as { pricing: never }).pricing)).toEqual([row('priced-model', '1', '2')]);
    expect(readPricing('{"name":"x"}')).toEqual({ pricing: {} });
  });

  it('says why a manifest that does not parse, or whose pricing is invalid, cannot be edited here', () => {
    expect(readPricing('{"name": }')).toMatchObject({ error: expect.stringMatching(/does not parse/) });
    expect(readPricing('{"pricing": {"m": {"input": -1, "output": 1}}}')).toMatchObject({ error: expect.stringMatching(/pricing is not valid/) });
  });

  it('writes only the pricing value: every other line keeps its formatting', () => {
    const out = writePricing(MANIFEST, { 'priced-model': { input: 3, output: 4, cachedInput: 0.5 }, 'other-model': { input: 1, output: 1 } });
    expect(JSON.parse(out).pricing).toEqual({ 'priced-model': { input: 3, output: 4, cachedInput: 0.5 }, 'other-model': { input: 1, output: 1 } });
    // The lines before pricing, the inline skills array among them, are as the author wrote them.
    expect(out.split('\n').slice(0, 4)).toEqual(MANIFEST.split('\n').slice(0, 4));
  });

  it('adds pricing to a manifest without it, and removes it when every row is gone', () => {
    const without = '{\n  "name": "x"\n}\n';
    const added = writePricing(without, { m: { input: 1, output: 2 } });
    expect(JSON.parse(added)).toEqual({ name: 'x', pricing: { m: { input: 1, output: 2 } } });
    expect(added.startsWith('{\n  "name": "x",\n  "pricing"')).toBe(true);
    expect(JSON.parse(writePricing(MANIFEST, {}))).not.toHaveProperty('pricing');
  });

  it('turns rows into prices, ignoring the blank new row and saying what is wrong', () => {
    expect(pricingOf([row('a', '1', '2', '0.5'), row('')])).toEqual({ pricing: { a: { input: 1, output: 2, cachedInput: 0.5 } } });
    expect(pricingOf([row('', '1', '2')])).toEqual({ error: 'Every price needs its model’s name' });
    expect(pricingOf([row('a', '1', '2'), row('a', '1', '2')])).toEqual({ error: 'a is listed twice' });
    expect(pricingOf([row('a', 'x', '2')])).toEqual({ error: 'a: input must be a number of US dollars, 0 or more' });
    expect(pricingOf([row('a', '1')])).toEqual({ error: 'a: the input and output prices are required' });
  });
});
