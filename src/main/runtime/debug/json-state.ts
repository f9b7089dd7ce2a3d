// A graph's state as JSON the debugger can show and diff (docs/playground-api.md, "The state
// at every step"). Unlike trace values (observability/trace-value.ts) nothing is cut or
// redacted: the studio's author reads their own thread, through the control token only.
// LangChain messages become `{type, content, ...}` with the fields a reader needs; values JSON
// has no word for are written as what they are (a Date as its ISO text, a Map as an object,
// a Set or typed array as an array, a bigint as text); functions and symbols are left out.
const MAX_DEPTH = 64;

interface MessageLike {
  _getType(): string;
  content: unknown;
  id?: unknown;
  name?: unknown;
  tool_calls?: unknown[];
  tool_call_id?: unknown;
  additional_kwargs?: Record<string, unknown>;
  response_metadata?: Record<string, unknown>;
  usage_metadata?: unknown;
}

function isMessage(value: object): value is MessageLike {
  return typeof (value as { _getType?: unknown })._getType === 'function' && 'content' in value;
}

function nonEmpty(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

function message(m: MessageLike, seen: Set<object>, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: m._getType(), content: safe(m.content, seen, depth + 1) };
  const fields = ['id', 'name', 'tool_calls', 'tool_call_id', 'additional_kwargs', 'response_metadata', 'usage_metadata'] as const;
  for (const f of fields) if (nonEmpty(m[f])) out[f] = safe(m[f], seen, depth + 1);
  return out;
}

function safe(value: unknown, seen: Set<object>, depth: number): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object') return undefined; // undefined, functions, symbols
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (isMessage(value)) return message(value, seen, depth);
    if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
    if (value instanceof Error) return { name: value.name, message: value.message };
    if (ArrayBuffer.isView(value)) return Array.from(value as unknown as ArrayLike<number>);
    if (value instanceof Map) return safe(Object.fromEntries(value), seen, depth);
    if (value instanceof Set) return [...value].map((v) => safe(v, seen, depth + 1) ?? null);
    if (Array.isArray(value)) return value.map((v) => safe(v, seen, depth + 1) ?? null);
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const s = safe(v, seen, depth + 1);
      if (s !== undefined) out[k] = s;
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** A JSON-safe copy of a state value (a channel's value, a pending write). */
export function jsonState(value: unknown): unknown {
  return safe(value, new Set(), 0) ?? null;
}
