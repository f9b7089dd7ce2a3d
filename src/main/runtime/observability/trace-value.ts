// Values that go into trace events (a node's state update, an interrupt, an error) are
// bounded and redacted before they leave the process (docs/runtime-traces.md):
//   - keys that name secrets (api_key, token, secret, password, authorization, cookie, dsn)
//     have their value replaced by "[redacted]";
//   - LangChain messages become {role, content};
//   - strings longer than 2,000 characters, arrays longer than 50 items and nesting deeper
//     than 8 levels are cut, saying how much was left out;
//   - the whole value is at most 8 KiB of JSON: beyond that it becomes
//     {truncated: true, bytes, preview} with the first 8 KiB of its JSON text.
import type { ModelCall } from '../../../sdk/model-call.ts';

export const TRACE_VALUE_MAX_BYTES = 8 * 1024;
const MAX_STRING = 2000;
const MAX_ITEMS = 50;
const MAX_DEPTH = 8;
const SECRET_KEY = /(api[_-]?key|token|secret|passw(or)?d|authori[sz]ation|cookie|credential|dsn|private[_-]?key)/i;

function simplify(value: unknown, depth: number): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'string') return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}…(+${value.length - MAX_STRING} chars)` : value;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined; // functions, symbols, undefined
  if (depth >= MAX_DEPTH) return '[…]';
  const message = value as { _getType?: () => string; content?: unknown; tool_calls?: unknown[] };
  if (typeof message._getType === 'function') {
    const out: Record<string, unknown> = { role: message._getType(), content: simplify(message.content, depth + 1) };
    if (Array.isArray(message.tool_calls) && message.tool_calls.length) out.tool_calls = simplify(message.tool_calls, depth + 1);
    return out;
  }
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((v) => simplify(v, depth + 1) ?? null);
    if (value.length > MAX_ITEMS) items.push(`…(+${value.length - MAX_ITEMS} items)`);
    return items;
  }
  if (value instanceof Map) return simplify(Object.fromEntries(value), depth);
  if (value instanceof Set) return simplify([...value], depth);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (SECRET_KEY.test(k)) out[k] = '[redacted]';
    else {
      const s = simplify(v, depth + 1);
      if (s !== undefined) out[k] = s;
    }
  }
  return out;
}

/** A JSON-safe, bounded and redacted copy of `value` for a trace event. */
export function traceValue(value: unknown, maxBytes = TRACE_VALUE_MAX_BYTES): unknown {
  const simple = simplify(value, 0);
  const json = JSON.stringify(simple ?? null);
  if (json.length <= maxBytes) return simple;
  return { truncated: true, bytes: json.length, preview: json.slice(0, maxBytes) };
}

/** A model call's record as the `model.call` event's fields: messages (present only when
 * TRACE_MODEL_CONTENT is on) bounded and redacted like every other traced value. */
export function modelCallFields(call: ModelCall): Record<string, unknown> {
  // A recorded call (D-91) keeps its messages whole: a replay answers with them; the studio
  // moves large ones to its blob store.
  if (call.key) return { ...call };
  const { input_messages, output_messages, ...rest } = call;
  return {
    ...rest,
    ...(input_messages ? { input_messages: traceValue(input_messages) } : {}),
    ...(output_messages ? { output_messages: traceValue(output_messages) } : {}),
  };
}
