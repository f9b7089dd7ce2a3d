// A JSON Schema of the loaded graph's state (docs/playground-api.md, "Edit the state"): what
// an edit of a fork or of a paused run's Continue may hold. A graph that declares its state
// with zod gets LangGraph's own update schema; any other graph (Annotation) gets one derived
// from its channels: each state channel a property (no other property is allowed), typed by its
// default value (`[]` an array, `''` a string, ...; no default or `null`: anything), and a
// messages channel as a list of messages in the shape the state endpoints give. The edit is
// checked against it before anything is written (the editor shows the same schema's problems).
import { messagesStateReducer } from '@langchain/langgraph';
import { getUpdateTypeSchema } from '@langchain/langgraph/zod/schema';
import type { ValidateFunction } from 'ajv';
import { createContractAjv, describeContractErrors, contractProblemsText } from '../../../shared/contracts.ts';
import type { StateSchema } from '../../../shared/thread-state.ts';

const MESSAGE_TYPES = ['human', 'ai', 'system', 'tool', 'function', 'generic', 'developer', 'remove'];

/** A message as the state endpoints write it (json-state.ts). */
export const MESSAGE_SCHEMA = {
  type: 'object',
  required: ['type', 'content'],
  properties: {
    type: { enum: MESSAGE_TYPES },
    content: { anyOf: [{ type: 'string' }, { type: 'array' }] },
    id: { type: 'string' },
    name: { type: 'string' },
    tool_calls: { type: 'array' },
    tool_call_id: { type: 'string' },
  },
};

/** What the schema needs of the loaded graph. */
export interface SchemaGraph {
  channels: Record<string, unknown>;
  builder?: unknown;
}

/** The state's own channels (not LangGraph's internal ones, `__start__`, `branch:...`). */
export function stateChannels(graph: Pick<SchemaGraph, 'channels'>): string[] {
  return Object.keys(graph.channels).filter((c) => !c.startsWith('__') && !c.includes(':'));
}

function typeOfDefault(value: unknown): Record<string, unknown> {
  if (Array.isArray(value)) return { type: 'array' };
  if (value === null || value === undefined) return {};
  if (typeof value === 'string') return { type: 'string' };
  if (typeof value === 'number') return { type: 'number' };
  if (typeof value === 'boolean') return { type: 'boolean' };
  if (typeof value === 'object') return { type: 'object' };
  return {};
}

function channelSchema(channel: unknown): Record<string, unknown> {
  const c = channel as { operator?: { name?: string }; initialValueFactory?: () => unknown };
  if (c.operator === messagesStateReducer || c.operator?.name === 'messagesStateReducer') return { type: 'array', items: MESSAGE_SCHEMA };
  if (typeof c.initialValueFactory !== 'function') return {};
  try {
    return typeOfDefault(c.initialValueFactory());
  } catch {
    return {};
  }
}

/** LangGraph's update schema of a graph with a zod state, or null (an Annotation state). */
function zodSchema(graph: SchemaGraph): Record<string, unknown> | null {
  try {
    const s = getUpdateTypeSchema(graph) as Record<string, unknown> | undefined;
    return s && typeof s.properties === 'object' && s.properties !== null ? s : null;
  } catch {
    return null;
  }
}

export function stateSchema(graph: SchemaGraph): StateSchema {
  const channels = stateChannels(graph);
  const declared = zodSchema(graph);
  const declaredProps = (declared?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const properties: Record<string, unknown> = {};
  for (const name of channels) {
    const derived = channelSchema(graph.channels[name]);
    // Messages arrive in the endpoints' shape, whatever the zod schema says of message objects.
    properties[name] = derived.items === MESSAGE_SCHEMA || !declaredProps[name] ? derived : declaredProps[name];
  }
  const schema = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties, additionalProperties: false };
  return { schema, source: declared ? 'zod' : 'channels', channels };
}

/** Checks edits against the loaded graph's state schema, compiled once per graph. */
export class EditChecker {
  private compiled = new WeakMap<object, { schema: StateSchema; validate: ValidateFunction | null }>();

  schemaOf(graph: SchemaGraph): StateSchema {
    return this.entry(graph).schema;
  }

  /** Null when the edit fits, else the message to refuse it with (the state's channels named). */
  problems(graph: SchemaGraph, values: Record<string, unknown>): { message: string; detail: Record<string, unknown> } | null {
    const { schema, validate } = this.entry(graph);
    const unknown = Object.keys(values).filter((c) => !schema.channels.includes(c));
    if (unknown.length)
      return {
        message: `The state has no channel ${unknown.map((c) => `'${c}'`).join(', ')}; its channels are ${schema.channels.join(', ')}.`,
        detail: { unknown, channels: schema.channels },
      };
    if (!validate || validate(values)) return null;
    const problems = describeContractErrors(validate.errors);
    return { message: `The edit does not fit the state's schema: ${contractProblemsText(problems)}.`, detail: { problems } };
  }

  private entry(graph: SchemaGraph) {
    let e = this.compiled.get(graph);
    if (!e) {
      const schema = stateSchema(graph);
      let validate: ValidateFunction | null = null;
      try {
        validate = createContractAjv().compile(schema.schema);
      } catch {
        validate = null; // a declared schema ajv cannot compile: the channel names are still checked
      }
      e = { schema, validate };
      this.compiled.set(graph, e);
    }
    return e;
  }
}
