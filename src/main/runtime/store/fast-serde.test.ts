// The fast reader (fast-serde.ts) builds exactly what LangGraph's own reader builds from the
// same stored bytes: the same classes, the same fields, the same bytes when written again.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AIMessage, AIMessageChunk, ChatMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { StringPromptValue } from '@langchain/core/prompt_values';
import { MemorySaver } from '@langchain/langgraph-checkpoint';
import { FastReadSerializer } from './fast-serde.ts';

const langgraph = new MemorySaver().serde;

/** Both readers on what LangGraph writes for `value` (or the error each fails with). */
async function both(value: unknown) {
  const fast = new FastReadSerializer();
  const [type, bytes] = await langgraph.dumpsTyped(value);
  const settle = (p: Promise<unknown>) =>
    p.then(
      (v) => ({ value: v }),
      (err: Error) => ({ error: err.message }),
    );
  const expected = await settle(langgraph.loadsTyped(type, bytes));
  const got = await settle(fast.loadsTyped(type, bytes));
  return { expected, got, stats: fast.stats };
}

async function expectSame(value: unknown) {
  const { expected, got, stats } = await both(value);
  expect(got).toStrictEqual(expected);
  // Written again, both give the same bytes.
  if ('value' in got && 'value' in expected) {
    const again = async (v: unknown) => Buffer.from((await langgraph.dumpsTyped(v))[1]).toString();
    expect(await again(got.value)).toBe(await again(expected.value));
  }
  return stats;
}

const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<unknown>;
const record = fc.dictionary(fc.string({ maxLength: 12 }), json, { maxKeys: 4 });
const text = fc.string({ maxLength: 40 });
const content = fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 3 }));
const id = fc.option(fc.uuid(), { nil: undefined });
const toolCall = fc.record({ name: fc.string({ minLength: 1, maxLength: 10 }), args: record, id: fc.uuid(), type: fc.constant('tool_call' as const) });

const message: fc.Arbitrary<BaseMessage> = fc.oneof(
  fc
    .record({ content, id, name: fc.option(text, { nil: undefined }), additional_kwargs: fc.option(record, { nil: undefined }) })
    .map((f) => new HumanMessage(f)),
  fc
    .record({
      content,
      id,
      tool_calls: fc.array(toolCall, { maxLength: 2 }),
      response_metadata: fc.option(record, { nil: undefined }),
      usage_metadata: fc.option(fc.record({ input_tokens: fc.nat(), output_tokens: fc.nat(), total_tokens: fc.nat() }), { nil: undefined }),
    })
    .map((f) => new AIMessage(f)),
  fc.record({ content: text, id }).map((f) => new AIMessageChunk(f)),
  fc.record({ content, id }).map((f) => new SystemMessage(f)),
  fc.record({ content, tool_call_id: fc.uuid(), id, artifact: fc.option(json, { nil: undefined }) }).map((f) => new ToolMessage(f)),
  fc.record({ content: text, role: fc.constantFrom('user', 'critic'), id }).map((f) => new ChatMessage(f)),
  fc.uuid().map((i) => new RemoveMessage({ id: i })),
);

describe('FastReadSerializer', () => {
  it('reads a conversation as LangGraph does, on its fast path', async () => {
    const conversation = [
      new HumanMessage({ content: 'How do I reset my password?', id: 'h1' }),
      new AIMessage({ content: '', id: 'a1', tool_calls: [{ name: 'search', args: { q: 'reset' }, id: 'c1', type: 'tool_call' }] }),
      new ToolMessage({ content: 'Article 12', tool_call_id: 'c1', id: 't1' }),
      new AIMessage({
        content: 'See article 12.',
        id: 'a2',
        response_metadata: { model: 'scripted' },
        usage_metadata: { input_tokens: 3, output_tokens: 4, total_tokens: 7 },
      }),
    ];
    const stats = await expectSame(conversation);
    expect(stats).toEqual({ fast: 1, stock: 0 });
    const got = (await both(conversation)).got as { value: BaseMessage[] };
    expect(got.value.map((m) => m.constructor.name)).toEqual(['HumanMessage', 'AIMessage', 'ToolMessage', 'AIMessage']);
    expect((got.value as AIMessage[])[1].tool_calls?.[0]).toMatchObject({ name: 'search', args: { q: 'reset' } });
    expect(await expectSame({ text: 'x', data: [{ a: 1 }], files: [], metadata: {} })).toEqual({ fast: 1, stock: 0 });
    // Fields set to undefined (LangGraph writes a record for each) stay on the fast path.
    const sparse = [new ToolMessage({ content: 'x', tool_call_id: 'c1', id: undefined, artifact: undefined }), { a: undefined, b: [undefined, 1] }];
    expect(await expectSame(sparse)).toEqual({ fast: 1, stock: 0 });
  });

  it('builds the same messages for any mix of kinds and fields', async () => {
    const total = { fast: 0, stock: 0 };
    await fc.assert(
      fc.asyncProperty(fc.array(message, { maxLength: 6 }), async (messages) => {
        const stats = await expectSame(messages);
        total.fast += stats.fast;
        total.stock += stats.stock;
      }),
      { numRuns: 300 },
    );
    // Explicitly undefined fields and arbitrary JSON in kwargs stay on the fast path.
    expect(total.fast).toBeGreaterThan(total.stock * 10);
  });

  it('hands what it does not know to LangGraph: other LangChain objects, sets, maps, undefined, user data with an lc key, a record LangGraph refuses', async () => {
    const cases: unknown[] = [
      [new HumanMessage('hi'), new StringPromptValue('a prompt')],
      { seen: new Set([1, 2]), index: new Map([['a', 1]]) },
      { lc: 1, type: 'constructor', id: ['not', 'ours'], kwargs: {} },
      [new AIMessage({ content: 'x', additional_kwargs: { lc: 1, nested: true } })],
      // Nested past load()'s depth limit: LangGraph's reader refuses it, and so does this one.
      [new AIMessage({ content: 'x', additional_kwargs: { deep: JSON.parse('['.repeat(60) + ']'.repeat(60)) } })],
    ];
    for (const [i, value] of cases.entries()) expect([i, (await expectSame(value)).stock]).toEqual([i, 1]);
  });

  it('drops a "__proto__" key inside a message as LangGraph does, without setting a prototype', async () => {
    const args = JSON.parse('{"__proto__": {"isAdmin": true}, "q": "x"}') as Record<string, unknown>;
    const message = new AIMessage({ content: '', tool_calls: [{ name: 'lookup', args, id: 'c1', type: 'tool_call' }] });
    expect(await expectSame([message])).toEqual({ fast: 1, stock: 0 });
    const got = (await both([message])).got as { value: AIMessage[] };
    const readArgs = got.value[0].tool_calls![0].args;
    expect(readArgs).toEqual({ q: 'x' });
    expect(readArgs.isAdmin).toBeUndefined();
    expect(Object.getPrototypeOf(readArgs)).toBe(Object.prototype);
  });

  it('writes exactly what LangGraph writes', async () => {
    const fast = new FastReadSerializer();
    const value = [new HumanMessage('hi'), { a: new Set([1]) }];
    expect(await fast.dumpsTyped(value)).toEqual(await langgraph.dumpsTyped(value));
  });
});
