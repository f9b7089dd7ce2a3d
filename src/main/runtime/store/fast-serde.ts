// LangGraph's checkpoint serializer with a faster way back for chat messages
// (docs/decisions.md D-42).
//
// A warm turn reads the thread's `messages` channel (up to 40 messages in the working state)
// and writes it back. LangGraph's JsonPlusSerializer revives it with an async walk that
// awaits every leaf, and each message through LangChain's load(): the message is turned back
// into a string, parsed again, walked by a generic reviver that copies its path at every
// value, and its class's aliases are collected again from the prototype chain. That was
// most of what a turn at 200 cost more than a turn at 1 (0.5 ms of 1.3).
//
// Stored bytes are unchanged: writing is LangGraph's own. Reading takes a synchronous walk
// that builds exactly what load() builds for the objects it knows: plain JSON values, and
// LangChain messages (`{lc: 1, type: "constructor", id: ["langchain_core", "messages", X]}`)
// whose kwargs hold plain JSON only; `new X(kwargs with load()'s key mapping)`. Anything else
// with an `lc` key (LangGraph's own records, other LangChain objects, secrets, escaped user
// data, a message whose kwargs nest one) makes the whole value go through LangGraph's reader,
// so the result is always what LangGraph would have built.
import * as messages from '@langchain/core/messages';
import { MemorySaver, type SerializerProtocol } from '@langchain/langgraph-checkpoint';

/** Thrown inside the walk when a value needs LangGraph's reader. */
const BAIL = Symbol('bail');

type Builder = new (fields: Record<string, unknown>) => object;

/** load()'s key mapping (map_keys.ts in @langchain/core): an alias, else camelCase. */
const SEPARATORS = /[-_\s]+/g;
function camelCase(key: string): string {
  const trimmed = key.trim();
  if (!/[-_\s]/.test(trimmed)) return trimmed;
  return trimmed
    .replace(SEPARATORS, '_')
    .toLowerCase()
    .replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** load()'s combineAliasesAndInvert, once per class (aliases are getters on prototypes). */
const aliasCache = new Map<Builder, Record<string, string>>();
function invertedAliases(builder: Builder): Record<string, string> {
  let inverted = aliasCache.get(builder);
  if (!inverted) {
    const aliases: Record<string, string> = {};
    for (let c: unknown = builder; c && (c as { prototype?: unknown }).prototype; c = Object.getPrototypeOf(c)) {
      Object.assign(aliases, Reflect.get((c as { prototype: object }).prototype, 'lc_aliases'));
    }
    inverted = {};
    for (const [key, value] of Object.entries(aliases)) inverted[value] = key;
    aliasCache.set(builder, inverted);
  }
  return inverted;
}

const MESSAGE_CLASSES = messages as unknown as Record<string, unknown>;

function reviveMessage(record: Record<string, unknown>): object {
  const id = record.id as unknown[];
  const name = id[2];
  const builder = typeof name === 'string' && id.length === 3 ? MESSAGE_CLASSES[name] : undefined;
  if (typeof builder !== 'function') throw BAIL;
  const kwargs = plain(record.kwargs);
  if (!kwargs || typeof kwargs !== 'object' || Array.isArray(kwargs)) throw BAIL;
  const map = invertedAliases(builder as Builder);
  const fields: Record<string, unknown> = {};
  for (const key in kwargs) if (Object.hasOwn(kwargs, key)) fields[map[key] || camelCase(key)] = (kwargs as Record<string, unknown>)[key];
  const instance = new (builder as Builder)(fields);
  Object.defineProperty(instance.constructor, 'name', { value: name });
  return instance;
}

function isMessageRecord(v: Record<string, unknown>): boolean {
  const id = v.id;
  return v.lc === 1 && v.type === 'constructor' && 'kwargs' in v && Array.isArray(id) && id[0] === 'langchain_core' && id[1] === 'messages';
}

/** LangGraph's record of an undefined value (`{lc: 2, type: "undefined"}`). */
const isUndefinedRecord = (v: unknown): boolean =>
  v !== null && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>).lc === 2 && (v as Record<string, unknown>).type === 'undefined';

/** Nesting inside a message's kwargs read here; deeper goes to LangGraph's reader. */
const KWARGS_DEPTH = 40;

/** A message's kwargs as load() gets them: LangGraph revives them, then hands load() their
 * JSON text, so an undefined value leaves an object and becomes null in an array. Any other
 * `lc` record, or escaped user data, throws BAIL. */
function plain(v: unknown, depth = 0): unknown {
  if (v === null || typeof v !== 'object') return v;
  // load() refuses values nested past its depth limit (50): let it decide those.
  if (depth > KWARGS_DEPTH) throw BAIL;
  if (Array.isArray(v)) return v.map((item) => (isUndefinedRecord(item) ? null : plain(item, depth + 1)));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    if (key === 'lc' || key === '__lc_escaped__') throw BAIL;
    // LangGraph's walk assigns a "__proto__" key (which sets the prototype), then load() gets
    // the JSON text, where it is gone: the key leaves, and no prototype is set.
    if (key === '__proto__') continue;
    const item = (v as Record<string, unknown>)[key];
    if (!isUndefinedRecord(item)) out[key] = plain(item, depth + 1);
  }
  return out;
}

/** The channel value: plain JSON, undefined records and messages, else BAIL. */
function walk(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(walk);
  const record = v as Record<string, unknown>;
  if ('lc' in record) {
    if (isMessageRecord(record)) return reviveMessage(record);
    if (isUndefinedRecord(record)) return undefined;
    throw BAIL;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key === '__lc_escaped__') throw BAIL;
    out[key] = walk(record[key]);
  }
  return out;
}

/** LangGraph's own serializer (JsonPlusSerializer is not exported: every saver has one). */
const stock = (): SerializerProtocol => new MemorySaver().serde;

export class FastReadSerializer implements SerializerProtocol {
  /** Values the fast walk read, and those it handed to LangGraph's reader. */
  readonly stats = { fast: 0, stock: 0 };

  constructor(private readonly langgraph: SerializerProtocol = stock()) {}

  dumpsTyped(obj: unknown): Promise<[string, Uint8Array]> {
    return this.langgraph.dumpsTyped(obj);
  }

  async loadsTyped(type: string, data: Uint8Array | string): Promise<unknown> {
    if (type !== 'json') return this.langgraph.loadsTyped(type, data);
    const parsed: unknown = JSON.parse(typeof data === 'string' ? data : decoder.decode(data));
    try {
      const value = walk(parsed);
      this.stats.fast += 1;
      return value;
    } catch (err) {
      if (err !== BAIL) throw err;
      this.stats.stock += 1;
      return this.langgraph.loadsTyped(type, data);
    }
  }
}

const decoder = new TextDecoder();
