import { describe, expect, it } from 'vitest';
import { ContractChecker, contractProblemsText } from './contracts.ts';

const TICKET = {
  type: 'object',
  required: ['schema', 'topic', 'orderId'],
  additionalProperties: false,
  properties: {
    schema: { const: 'support.ticket/1' },
    topic: { enum: ['refund', 'order_status', 'question'] },
    orderId: { type: 'string', pattern: '^ORD-\\d{5}$' },
    priority: { type: 'integer', minimum: 1, maximum: 3 },
  },
};

describe('contract checking', () => {
  const checker = new ContractChecker();

  it('accepts a part that meets the contract', () => {
    expect(checker.check('support.ticket/1', TICKET, { schema: 'support.ticket/1', topic: 'refund', orderId: 'ORD-12345' })).toEqual([]);
  });

  it('lists every problem by JSON path, an enum error with the allowed values', () => {
    const problems = checker.check('support.ticket/1', TICKET, { schema: 'support.ticket/1', topic: 'complaint', orderId: 'X1', priority: 9, colour: 'red' })!;
    expect(problems).toContainEqual({
      path: '/topic',
      message: 'must be one of: refund, order_status, question',
      allowed: ['refund', 'order_status', 'question'],
    });
    expect(problems).toContainEqual({ path: '/colour', message: 'is not allowed by the contract' });
    expect(problems.map((p) => p.path)).toEqual(expect.arrayContaining(['/orderId', '/priority']));
    expect(checker.check('support.ticket/1', TICKET, { schema: 'support.ticket/1' })).toEqual([
      { path: '/topic', message: 'is required' },
      { path: '/orderId', message: 'is required' },
    ]);
  });

  it('recompiles an edited schema that keeps its $id, and answers null for one that does not compile', () => {
    const withId = { ...TICKET, $id: 'https://example.com/ticket' };
    expect(checker.check('t', withId, { schema: 'support.ticket/1', topic: 'refund', orderId: 'ORD-12345' })).toEqual([]);
    const edited = { ...withId, properties: { ...TICKET.properties, topic: { enum: ['refund'] } } };
    expect(checker.check('t', edited, { schema: 'support.ticket/1', topic: 'question', orderId: 'ORD-12345' })).toHaveLength(1);
    expect(checker.check('broken', { type: 'object', properties: { a: { type: 'no-such-type' } } }, {})).toBeNull();
  });

  it('says problems in one line, and recompiles when the schema changes', () => {
    expect(contractProblemsText(checker.check('support.ticket/1', TICKET, { schema: 'support.ticket/1', topic: 'x', orderId: 'ORD-12345' })!)).toBe(
      '/topic must be one of: refund, order_status, question',
    );
    const looser = { ...TICKET, properties: { ...TICKET.properties, topic: { type: 'string' } } };
    expect(checker.check('support.ticket/1', looser, { schema: 'support.ticket/1', topic: 'x', orderId: 'ORD-12345' })).toEqual([]);
  });
});
