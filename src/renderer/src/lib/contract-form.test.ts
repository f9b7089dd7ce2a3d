import { describe, expect, it } from 'vitest';
import { formFields, parseInput, readObject, writeField } from './contract-form.ts';

const TICKET = {
  type: 'object',
  required: ['schema', 'topic'],
  properties: {
    schema: { const: 'support.ticket/1' },
    orderId: { type: 'string', description: 'ORD- and five digits' },
    topic: { enum: ['refund', 'order_status', 'question'] },
    priority: { enum: ['low', 'normal', 'high'], default: 'normal' },
    count: { type: 'integer' },
    urgent: { type: 'boolean' },
  },
};

describe('contract form', () => {
  it('lists the fields, required first, with kind, options and default', () => {
    const fields = formFields(TICKET);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['schema', 'const', true],
      ['topic', 'enum', true],
      ['orderId', 'string', false],
      ['priority', 'enum', false],
      ['count', 'integer', false],
      ['urgent', 'boolean', false],
    ]);
    expect(fields[1].options).toEqual(['refund', 'order_status', 'question']);
    expect(fields[3].default).toBe('normal');
    expect(fields[2].description).toBe('ORD- and five digits');
    expect(formFields({ type: 'array' })).toEqual([]);
  });

  it('reads and writes one field of the draft, and leaves a draft that does not parse alone', () => {
    const json = '{"schema": "support.ticket/1", "topic": "refund"}';
    const next = writeField(json, 'orderId', 'ORD-12345')!;
    expect(readObject(next)).toEqual({ schema: 'support.ticket/1', topic: 'refund', orderId: 'ORD-12345' });
    expect(readObject(writeField(next, 'topic', undefined)!)).toEqual({ schema: 'support.ticket/1', orderId: 'ORD-12345' });
    expect(writeField('{"topic": ', 'topic', 'x')).toBeNull();
    expect(readObject('[1]')).toBeNull();
  });

  it('parses inputs by kind', () => {
    expect(parseInput('integer', '3.7')).toBe(3);
    expect(parseInput('number', '2.5')).toBe(2.5);
    expect(parseInput('number', 'x')).toBe('x');
    expect(parseInput('string', '')).toBeUndefined();
  });
});
