import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { jsonState } from './json-state.ts';

describe('jsonState', () => {
  it('writes LangChain messages as {type, content} with the fields that are set', () => {
    const ai = new AIMessage({ content: 'Delivered.', id: 'a1', tool_calls: [{ name: 'lookup', args: { id: 'ORD-1' }, id: 'c1' }] });
    expect(jsonState([new HumanMessage('Where is ORD-1?'), ai])).toEqual([
      { type: 'human', content: 'Where is ORD-1?' },
      { type: 'ai', content: 'Delivered.', id: 'a1', tool_calls: [{ name: 'lookup', args: { id: 'ORD-1' }, id: 'c1' }] },
    ]);
  });

  it('keeps every value JSON has no word for readable, and never loops', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    const out = jsonState({
      at: new Date('2026-01-02T03:04:05Z'),
      map: new Map([['k', 1]]),
      set: new Set([1, 2]),
      big: 12n,
      nan: Number.NaN,
      fn: () => 1,
      gone: undefined,
      cyclic,
    });
    expect(out).toEqual({ at: '2026-01-02T03:04:05.000Z', map: { k: 1 }, set: [1, 2], big: '12', nan: 'NaN', cyclic: { name: 'a', self: '[circular]' } });
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it('keeps long values whole: the debugger shows the state as it is', () => {
    const long = 'x'.repeat(100_000);
    expect(jsonState({ long })).toEqual({ long });
  });
});
