// zod's issues with agent.json, rewritten for an author: what is wrong, then what the field is
// for ("required, a sentence shown to clients"), and for an unknown key the valid key it was
// probably meant to be ("unknown key 'inputMode': did you mean 'inputModes'?").
import { z } from 'zod';
import { didYouMean } from '../../common/nearest.ts';
import { fieldMeaning } from './manifest-fields.ts';

type Segment = string | number;

export interface FieldProblem {
  path: Segment[];
  message: string;
}

type Issue = z.core.$ZodIssue;

/** One problem per issue, and one per unknown key. */
export function manifestProblems(schema: z.ZodType, issues: readonly Issue[], raw: unknown): FieldProblem[] {
  const out: FieldProblem[] = [];
  for (const issue of issues) {
    const path = issue.path.filter((p): p is Segment => typeof p !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const valid = objectKeysAt(schema, path, raw);
      for (const key of issue.keys) out.push({ path: [...path, key], message: unknownKey(key, valid) });
      continue;
    }
    const problem = describe(issue, valueAt(raw, path));
    // A bad name in a map is about the name, not about what the entry is for.
    const meaning = issue.code === 'invalid_key' ? undefined : fieldMeaning(path);
    out.push({ path, message: meaning ? `${problem}, ${meaning}` : problem });
  }
  return out;
}

function unknownKey(key: string, valid: string[]): string {
  const hint = didYouMean(key, valid);
  if (hint) return `unknown key '${key}'${hint}`;
  return valid.length ? `unknown key '${key}' (valid keys: ${valid.join(', ')})` : `unknown key '${key}'`;
}

/** What is wrong, in words: zod's own texts are for developers of the schema. */
function describe(issue: Issue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return 'required';
      if (issue.expected === 'int' && typeof value === 'number') return 'must be a whole number';
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected} (not ${typeWord(value)})`;
    case 'too_small':
      return customOr(issue.message, tooSmall(issue));
    case 'too_big':
      return customOr(issue.message, tooBig(issue));
    case 'invalid_format':
      return customOr(issue.message, issue.format === 'url' ? 'must be a URL like https://host/path' : `must be a valid ${issue.format}`);
    case 'invalid_value':
      return `must be ${oneOf(issue.values)}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      if (value === undefined) return 'required';
      if (Array.isArray(options)) return `must be ${oneOf(options)}`;
      return 'does not match any of the allowed forms';
    }
    case 'invalid_key': {
      const key = issue.path.at(-1);
      const inner = issue.issues[0];
      return `the name '${String(key)}' ${inner ? customOr(inner.message, 'is not allowed') : 'is not allowed'}`;
    }
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return cleanMessage(issue.message);
  }
}

/** `"stdio" or "http"`; `one of "A", "B", "C"` for longer lists. */
function oneOf(values: readonly unknown[]): string {
  const words = values.map((v) => JSON.stringify(v));
  if (words.length <= 2) return words.join(' or ');
  return `one of ${words.join(', ')}`;
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  array: 'a list [...]',
  object: 'an object {...}',
  record: 'an object {...}',
  null: 'null',
};

function typeWord(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a whole number' : 'a number';
  return typeof value;
}

function tooSmall(issue: Extract<Issue, { code: 'too_small' }>): string {
  const min = Number(issue.minimum);
  if (issue.origin === 'string') return min <= 1 ? 'must not be empty' : `needs at least ${min} characters`;
  if (issue.origin === 'array' || issue.origin === 'set') return min <= 1 ? 'needs at least one item' : `needs at least ${min} items`;
  if (!issue.inclusive && min === 0) return 'must be greater than 0';
  return issue.inclusive ? `must be at least ${min}` : `must be greater than ${min}`;
}

function tooBig(issue: Extract<Issue, { code: 'too_big' }>): string {
  const max = Number(issue.maximum);
  if (issue.origin === 'string') return `must be at most ${max} characters`;
  if (issue.origin === 'array' || issue.origin === 'set') return `must have at most ${max} items`;
  return issue.inclusive ? `must be at most ${max}` : `must be less than ${max}`;
}

/** The schema's own message when it wrote one (`must be a semantic version like 1.0.0`). */
function customOr(message: string, fallback: string): string {
  return /^(Too (small|big)|Invalid|Expected|Number must|String must)/.test(message) ? fallback : message;
}

/** A zod text with its jargon prefix dropped, starting in lower case. */
function cleanMessage(message: string): string {
  const text = message.replace(/^Invalid input:\s*/, '').trim();
  return text.charAt(0).toLowerCase() + text.slice(1);
}

function valueAt(raw: unknown, path: readonly Segment[]): unknown {
  let value = raw;
  for (const segment of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<Segment, unknown>)[segment];
  }
  return value;
}

/** The keys the schema allows for the object at `path` (the raw value picks the branch of a
 * discriminated union). */
function objectKeysAt(schema: z.ZodType, path: readonly Segment[], raw: unknown): string[] {
  let candidates: z.ZodType[] = [schema];
  for (let depth = 0; depth <= path.length; depth++) {
    const value = valueAt(raw, path.slice(0, depth));
    candidates = candidates.flatMap((c) => branches(unwrap(c), value));
    if (depth === path.length) break;
    const segment = path[depth];
    candidates = candidates.flatMap((c): z.ZodType[] => {
      if (c instanceof z.ZodObject && typeof segment === 'string') return segment in c.shape ? [c.shape[segment] as z.ZodType] : [];
      if (c instanceof z.ZodArray && typeof segment === 'number') return [c.element as z.ZodType];
      if (c instanceof z.ZodRecord) return [c.valueType as z.ZodType];
      return [];
    });
  }
  return [...new Set(candidates.flatMap((c) => (c instanceof z.ZodObject ? Object.keys(c.shape) : [])))];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  while (s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable) s = s.unwrap() as z.ZodType;
  return s;
}

/** The options of a union that the value's discriminator selects (all of them if none does). */
function branches(schema: z.ZodType, value: unknown): z.ZodType[] {
  if (!(schema instanceof z.ZodDiscriminatedUnion)) return [schema];
  const options = schema.options as z.ZodType[];
  const key = (schema._zod.def as { discriminator: string }).discriminator;
  const tag = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  const chosen = options.filter((o) => o instanceof z.ZodObject && (o.shape[key] as z.ZodType).safeParse(tag).success);
  return chosen.length ? chosen : options;
}
