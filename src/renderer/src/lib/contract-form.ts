// A form from an input contract's JSON Schema (top-level properties of an object schema):
// which fields, of what kind, required or not, allowed values, default. The form and the
// JSON view edit the same draft text: reading parses it, writing sets one field.

export type FieldKind = 'enum' | 'string' | 'number' | 'integer' | 'boolean' | 'const' | 'other';

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  options?: unknown[];
  default?: unknown;
  description?: string;
}

type Schema = Record<string, unknown>;

function kindOf(s: Schema): FieldKind {
  if ('const' in s) return 'const';
  if (Array.isArray(s.enum)) return 'enum';
  const t = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  if (t === 'string' || t === 'number' || t === 'integer' || t === 'boolean') return t;
  return 'other';
}

/** The fields of an object schema, required ones first, in declaration order otherwise. */
export function formFields(schema: Schema | undefined): FormField[] {
  const props = schema && typeof schema.properties === 'object' && schema.properties ? (schema.properties as Record<string, Schema>) : null;
  if (!props) return [];
  const required = new Set(Array.isArray(schema!.required) ? (schema!.required as string[]) : []);
  const fields = Object.entries(props).map(([name, s]): FormField => ({
    name,
    kind: kindOf(s ?? {}),
    required: required.has(name),
    ...(Array.isArray(s?.enum) ? { options: s.enum as unknown[] } : {}),
    ...(s && 'default' in s ? { default: s.default } : {}),
    ...(typeof s?.description === 'string' ? { description: s.description } : {}),
  }));
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

/** The draft's JSON as an object, or null while it does not parse to one. */
export function readObject(json: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The draft with one field set (undefined removes it), pretty-printed like the JSON view. */
export function writeField(json: string, name: string, value: unknown): string | null {
  const obj = readObject(json);
  if (!obj) return null;
  const next = { ...obj };
  if (value === undefined) delete next[name];
  else next[name] = value;
  return JSON.stringify(next, null, 2);
}

/** A text input's value for a field kind: numbers parsed, '' removes the field. */
export function parseInput(kind: FieldKind, raw: string): unknown {
  if (raw === '') return undefined;
  if (kind === 'number' || kind === 'integer') {
    const n = Number(raw);
    return Number.isFinite(n) ? (kind === 'integer' ? Math.trunc(n) : n) : raw;
  }
  return raw;
}
