import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Annotation, MessagesAnnotation, StateGraph } from '@langchain/langgraph';
import { EditChecker, stateSchema } from './state-schema.ts';

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  intents: Annotation<string[]>({ reducer: (_p, n) => n, default: () => [] }),
  label: Annotation<string>({ reducer: (_p, n) => n, default: () => '' }),
  score: Annotation<number>({ reducer: (_p, n) => n, default: () => 0 }),
  request: Annotation<Record<string, unknown> | null>({ reducer: (_p, n) => n, default: () => null }),
  plain: Annotation<string>,
});

const annotated = () =>
  new StateGraph(State)
    .addNode('a', () => ({}))
    .addEdge('__start__', 'a')
    .compile() as unknown as Parameters<typeof stateSchema>[0];

describe('the state schema', () => {
  it('types each channel of an Annotation state by its default, messages as a message list, and no other property', () => {
    const s = stateSchema(annotated());
    expect(s.source).toBe('channels');
    expect(s.channels.sort()).toEqual(['intents', 'label', 'messages', 'plain', 'request', 'score']);
    const props = (s.schema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.intents).toEqual({ type: 'array' });
    expect(props.label).toEqual({ type: 'string' });
    expect(props.score).toEqual({ type: 'number' });
    expect(props.request).toEqual({});
    expect(props.plain).toEqual({});
    expect((props.messages!.items as { required: string[] }).required).toEqual(['type', 'content']);
    expect(s.schema.additionalProperties).toBe(false);
  });

  it('refuses an unknown channel naming the channels, and a value of the wrong type naming its path', () => {
    const checker = new EditChecker();
    const graph = annotated();
    expect(checker.problems(graph, { intents: ['x'], messages: [{ type: 'human', content: 'hi' }] })).toBeNull();
    expect(checker.problems(graph, { intent: ['x'] })).toMatchObject({
      message: expect.stringContaining("no channel 'intent'"),
      detail: { unknown: ['intent'] },
    });
    expect(checker.problems(graph, { intents: 'x' })!.message).toContain('/intents');
    expect(checker.problems(graph, { messages: [42] })!.message).toContain('/messages/0');
  });

  it('uses LangGraph’s update schema for a zod state', () => {
    const graph = new StateGraph(z.object({ topic: z.enum(['a', 'b']), count: z.number() }))
      .addNode('n', () => ({}))
      .addEdge('__start__', 'n')
      .compile() as unknown as Parameters<typeof stateSchema>[0];
    const s = stateSchema(graph);
    expect(s.source).toBe('zod');
    const props = (s.schema as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(props.topic).toMatchObject({ enum: ['a', 'b'] });
    expect(new EditChecker().problems(graph, { topic: 'c' })!.message).toContain('/topic');
  });
});
