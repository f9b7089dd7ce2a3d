import { describe, expect, it } from 'vitest';
import { completionsAt, historyPointer, rankKeys, rankValues, schemaAt } from './json-suggest.ts';

const ticket = {
  type: 'object',
  required: ['schema', 'topic'],
  properties: {
    schema: { const: 'support.ticket/1' },
    topic: { enum: ['refund', 'order_status', 'question'], description: 'What the ticket is about' },
    orderId: { type: 'string', pattern: '^ORD-[0-9]{5}$', examples: ['ORD-00001', 'not-an-id'] },
    priority: { enum: ['low', 'normal', 'high'], default: 'normal' },
    details: { type: 'string' },
    tags: { type: 'array', items: { $ref: '#/$defs/tag' } },
  },
  $defs: { tag: { type: 'string', enum: ['vip', 'urgent'] } },
};

const used = (value: string | number | boolean, count: number, last_used_at = '2026-11-01T00:00:00Z') => ({ value, count, last_used_at });

describe('rankValues', () => {
  it('puts values used in earlier runs first, most used then most recent, then default, enum, examples', () => {
    const ranked = rankValues(ticket.properties.priority, [used('low', 1, '2026-11-03T00:00:00Z'), used('high', 3), used('normal', 1, '2026-11-02T00:00:00Z')]);
    expect(ranked.map((r) => r.value)).toEqual(['high', 'low', 'normal']);
    expect(ranked[0]).toMatchObject({ sources: ['used', 'enum'], used: { count: 3 } });
    // 'normal' was used, is the default and an enum value: listed once with all three sources.
    expect(ranked[2].sources).toEqual(['used', 'default', 'enum']);
  });

  it('drops used values and examples the contract no longer accepts', () => {
    expect(rankValues(ticket.properties.priority, [used('urgent', 9)]).map((r) => r.value)).toEqual(['normal', 'low', 'high']);
    expect(rankValues(ticket.properties.orderId, [used('ORD-12345', 2), used('12345', 5)]).map((r) => r.value)).toEqual(['ORD-12345', 'ORD-00001']);
  });

  it('offers the skills\u2019 example prompts for free-text fields only', () => {
    const examples = ['Where is my order ORD-12345?'];
    expect(rankValues(ticket.properties.details, [], examples)).toEqual([{ value: examples[0], sources: ['skill'] }]);
    expect(rankValues(ticket.properties.priority, [], examples).some((r) => r.sources.includes('skill'))).toBe(false);
    expect(rankValues(ticket.properties.orderId, [], examples).some((r) => r.sources.includes('skill'))).toBe(false);
  });
});

describe('schemaAt and historyPointer', () => {
  it('follows properties, array items and local $refs', () => {
    expect(schemaAt(ticket, ['tags', 0])).toEqual({ type: 'string', enum: ['vip', 'urgent'] });
    expect(schemaAt(ticket, ['nope'])).toBeUndefined();
    expect(historyPointer(['tags', 3])).toBe('/tags/*');
    expect(historyPointer(['a/b', 'c~d'])).toBe('/a~1b/c~0d');
  });
});

describe('rankKeys', () => {
  it('lists missing properties, required first, with their descriptions', () => {
    const keys = rankKeys(ticket, ticket, new Set(['schema']));
    expect(keys.map((k) => k.key)).toEqual(['topic', 'orderId', 'priority', 'details', 'tags']);
    expect(keys[0]).toEqual({ key: 'topic', required: true, description: 'What the ticket is about' });
  });
});

describe('completionsAt', () => {
  const ctx = { schema: ticket, history: [{ pointer: '/topic', values: [used('refund', 4)] }], skillExamples: ['I want a refund'] };

  it('suggests the values of the field the cursor is on, replacing the value there', () => {
    const text = '{"schema": "support.ticket/1", "topic": "ord"}';
    const at = text.indexOf('"ord"') + 3;
    const result = completionsAt(text, at, ctx)!;
    expect(result.items.map((i) => i.label)).toEqual(['"refund"', '"order_status"', '"question"']);
    expect(result.items[0].detail).toBe('used in 4 earlier runs · enum');
    expect(text.slice(result.start, result.end)).toBe('"ord"');
  });

  it('suggests the properties not yet present at a key, and asks for values next when it has some', () => {
    const text = '{"schema": "support.ticket/1", "topic": "refund", }';
    const result = completionsAt(text, text.lastIndexOf('}'), ctx)!;
    const labels = result.items.map((i) => i.label);
    expect(labels).toEqual(['orderId', 'priority', 'details', 'tags']);
    const priority = result.items.find((i) => i.label === 'priority')!;
    expect(priority.insertText).toBe('"priority": "normal"');
    const tags = result.items.find((i) => i.label === 'tags')!;
    expect(tags.insertText).toBe('"tags": [$1]');
    const details = result.items.find((i) => i.label === 'details')!;
    expect(details).toMatchObject({ insertText: '"details": $1', retrigger: true });
  });

  it('replaces a half-typed key and keeps an existing colon', () => {
    const text = '{"pri": 1}';
    const result = completionsAt(text, 4, ctx)!;
    expect(text.slice(result.start, result.end)).toBe('"pri"');
    expect(result.items.find((i) => i.label === 'priority')?.insertText).toBe('"priority"');
  });

  it('has nothing to say without a contract or outside any field', () => {
    expect(completionsAt('{"a": 1}', 6, {})).toBeNull();
    expect(completionsAt('', 0, ctx)).toBeNull();
  });
});
