// The composer's draft → run-creation body (spec 2.5, 2.6, 4.3).
import { describe, expect, it } from 'vitest';
import { ComposerSchemaReplySchema } from '../../../shared/composer-schema.ts';
import { compose, contractSkeleton, parseMetadataValue } from './compose.ts';

const labels = { agentId: '', agentName: '', workflowId: '', workflowName: '', chatbotId: '', chatbotName: 'Desk bot' };

describe('compose', () => {
  it('builds text, data and file parts; a data part keeps its contract id and never its tab name', () => {
    const r = compose({
      text: 'Please check',
      dataParts: [{ id: 'd1', label: 'Ticket', json: '{"topic": "refund"}', contractSchema: 'support.ticket/1' }],
      files: [
        { id: 'f1', source: 'bytes', name: 'a.txt', mime_type: 'text/plain', size: 2, bytes_base64: 'aGk=' },
        { id: 'f2', source: 'uri', uri: 'https://example.com/x.pdf' },
      ],
      userId: ' u-1 ',
      labels,
      extra: [
        { id: 'm1', key: 'scriptedDelayMs', value: '200' },
        { id: 'm2', key: 'note', value: 'hello' },
        { id: 'm3', key: '', value: 'ignored' },
      ],
    });
    expect(r).toEqual({
      ok: true,
      parts: [
        { kind: 'text', text: 'Please check' },
        { kind: 'data', data: { topic: 'refund', schema: 'support.ticket/1' } },
        { kind: 'file', name: 'a.txt', mime_type: 'text/plain', bytes_base64: 'aGk=' },
        { kind: 'file', uri: 'https://example.com/x.pdf' },
      ],
      metadata: { userId: 'u-1', chatbotName: 'Desk bot', scriptedDelayMs: 200, note: 'hello' },
    });
  });

  it('refuses invalid JSON, non-object data, the reserved key and an empty message', () => {
    const base = { text: '', files: [], userId: '', labels, extra: [] };
    const bad = compose({ ...base, dataParts: [{ id: 'd1', label: 'Data 1', json: '{"a":' }] });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.dataPartId).toBe('d1');
    expect(compose({ ...base, dataParts: [{ id: 'd2', label: 'Data 2', json: '[1]' }] }).ok).toBe(false);
    expect(compose({ ...base, text: 'x', dataParts: [], extra: [{ id: 'm', key: 'svc.playground', value: '{}' }] }).ok).toBe(false);
    expect(compose({ ...base, dataParts: [] }).ok).toBe(false);
  });

  it('parses metadata values as JSON when they are JSON', () => {
    expect(parseMetadataValue('12')).toBe(12);
    expect(parseMetadataValue('true')).toBe(true);
    expect(parseMetadataValue('{"a":1}')).toEqual({ a: 1 });
    expect(parseMetadataValue('ORD-1')).toBe('ORD-1');
  });
});

describe('input contracts', () => {
  it('reads the composer-schema answer and starts a draft with the schema id and required fields', () => {
    const {
      contracts: [c],
    } = ComposerSchemaReplySchema.parse({
      contracts: [
        {
          schema: 'support.ticket/1',
          name: 'Ticket',
          json_schema: { required: ['schema', 'topic'], properties: { schema: { const: 'support.ticket/1' }, topic: { enum: ['refund', 'question'] } } },
          history: [],
        },
      ],
      skill_examples: [],
    });
    expect(c.name).toBe('Ticket');
    expect(JSON.parse(contractSkeleton(c))).toEqual({ schema: 'support.ticket/1', topic: 'refund' });
  });

  it("reads the suggestions (field history, the card's skill examples) and ignores keys it does not know", () => {
    const body = {
      contracts: [
        {
          schema: 's/1',
          name: 's/1',
          json_schema: null,
          history: [{ pointer: '/topic', values: [{ value: 'refund', count: 2, last_used_at: 't' }] }],
          later: 1,
        },
      ],
      skill_examples: [{ skill_id: 'refunds', skill_name: 'Refunds', text: 'I want a refund' }],
      added_later: true,
    };
    const read = ComposerSchemaReplySchema.parse(body);
    expect(read.contracts[0]).toEqual({
      schema: 's/1',
      name: 's/1',
      json_schema: null,
      history: [{ pointer: '/topic', values: [{ value: 'refund', count: 2, last_used_at: 't' }] }],
    });
    expect(read.skill_examples).toEqual([{ skill_id: 'refunds', skill_name: 'Refunds', text: 'I want a refund' }]);
  });

  it('refuses the other spellings: one reply shape, as the studio sends it', () => {
    expect(ComposerSchemaReplySchema.safeParse({ input_contracts: [], skill_examples: [] }).success).toBe(false);
    expect(ComposerSchemaReplySchema.safeParse([]).success).toBe(false);
    expect(ComposerSchemaReplySchema.safeParse({ contracts: [{ id: 'x/1' }], skill_examples: [] }).success).toBe(false);
  });
});
