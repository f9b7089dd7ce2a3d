import { describe, expect, it } from 'vitest';
import type { Part } from '@a2a-js/sdk';
import { AIMessage, HumanMessage, RemoveMessage } from '@langchain/core/messages';
import { applyDefaultSchema, artifactName } from './mapping.ts';
import { historySeed, lastAiText } from '../memory/messages.ts';
import type { Generation } from '../project/registry.ts';

const gen = (configured?: string, adapter?: string) =>
  ({ adapterArtifactName: adapter, project: { manifest: { output: { artifactName: configured } } } }) as unknown as Generation;

describe('output shaping (spec 4.1 rule 6)', () => {
  it('puts the default schema key on the first DataPart only', () => {
    const parts: Part[] = [
      { kind: 'text', text: 't' },
      { kind: 'data', data: { a: 1 } },
      { kind: 'data', data: { b: 2 } },
    ];
    const out = applyDefaultSchema(parts, 'x/1');
    expect((out[1] as any).data).toEqual({ schema: 'x/1', a: 1 });
    expect((out[2] as any).data).toEqual({ b: 2 });
  });

  it('never overwrites a schema already present', () => {
    const out = applyDefaultSchema([{ kind: 'data', data: { schema: 'mine/2' } }], 'x/1');
    expect((out[0] as any).data.schema).toBe('mine/2');
  });

  it('picks the artifact name: result, adapter constant, server configuration, default', () => {
    expect(artifactName({ artifactName: 'from-result' }, gen('cfg', 'adapter'))).toBe('from-result');
    expect(artifactName({}, gen('cfg', 'adapter'))).toBe('adapter');
    expect(artifactName(null, gen('cfg'))).toBe('cfg');
    expect(artifactName(null, gen())).toBe('agent-response');
  });
});

describe('metadata.history seeding (spec 4.1 rule 4)', () => {
  it('converts user/agent TextParts, skips malformed items, keeps the last N', () => {
    const seed = historySeed(
      [
        { role: 'user', parts: [{ kind: 'text', text: 'a' }] },
        {
          role: 'agent',
          parts: [
            { kind: 'text', text: 'b' },
            { kind: 'data', data: {} },
          ],
        },
        { role: 'tool', parts: [{ kind: 'text', text: 'no' }] },
        { role: 'user', parts: 'no' },
        null,
        { role: 'user', parts: [{ kind: 'text', text: 'c' }] },
      ],
      2,
    );
    expect(seed.map((m) => [m._getType(), m.content])).toEqual([
      ['ai', 'b'],
      ['human', 'c'],
    ]);
    expect(historySeed('nope', 5)).toEqual([]);
  });
});

describe("the exit node's answer when the graph sets no response.text", () => {
  it('takes the last AI message, from message objects or message-likes', () => {
    expect(lastAiText([new HumanMessage('q'), new AIMessage('first'), new AIMessage('last')])).toBe('last');
    expect(lastAiText(new AIMessage('single'))).toBe('single');
    expect(lastAiText([{ role: 'assistant', content: 'plain object' }])).toBe('plain object');
    expect(lastAiText(['ai', 'a tuple'])).toBe('a tuple');
    expect(lastAiText([['ai', 'tuple in a list'], new HumanMessage('after')])).toBe('tuple in a list');
  });

  it('reads the text of content blocks instead of their JSON', () => {
    const blocks = new AIMessage({
      content: [
        { type: 'text', text: 'Hello, ' },
        { type: 'text', text: 'world' },
      ],
    });
    expect(lastAiText([blocks])).toBe('Hello, world');
  });

  it('finds nothing in human messages, removals, empty AI messages or non-messages', () => {
    expect(lastAiText([new HumanMessage('q'), new AIMessage(''), new RemoveMessage({ id: 'x' })])).toBeUndefined();
    expect(lastAiText(undefined)).toBeUndefined();
    expect(lastAiText([42, { nope: true }])).toBeUndefined();
  });
});
