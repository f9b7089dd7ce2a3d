// What the composer's JSON view suggests at the cursor (docs/studio-ui.md, "Suggestions"):
// property names the contract declares and the object does not have yet, and values for a
// field from the project's earlier successful runs, the contract's `default`, `enum`/`const`
// and `examples`, and the agent card's skill examples for free-text fields. Pure: the Monaco
// adapter (monaco/jsonCompletion.ts) only turns these into completion items.
import { findNodeAtLocation, getLocation, parseTree, type JSONPath, type Node } from 'jsonc-parser';
import type { FieldHistory, UsedValue } from '../../../shared/suggestions.ts';

export type JsonSchema = Record<string, unknown>;
export type ValueSource = 'used' | 'default' | 'enum' | 'examples' | 'skill';

export interface ValueSuggestion {
  value: unknown;
  /** Where the value comes from, strongest first. */
  sources: ValueSource[];
  used?: { count: number; last_used_at: string };
}

export interface KeySuggestion {
  key: string;
  required: boolean;
  description?: string;
}

export interface SuggestContext {
  schema?: JsonSchema;
  history?: readonly FieldHistory[];
  skillExamples?: readonly string[];
}

export interface Completion {
  label: string;
  /** Snippet text (Monaco's `$1` placeholders); `retrigger` asks for value suggestions next. */
  insertText: string;
  snippet: boolean;
  retrigger: boolean;
  detail: string;
  documentation?: string;
  kind: 'property' | 'value';
}

export interface CompletionResult {
  /** The document range the completions replace (offsets). */
  start: number;
  end: number;
  items: Completion[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Follows a local `$ref` (`#/...`) inside the root schema. */
function deref(root: JsonSchema, s: unknown, depth = 0): JsonSchema | undefined {
  if (!isRecord(s)) return undefined;
  const ref = s.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#') || depth > 8) return s;
  let node: unknown = root;
  for (const raw of ref.slice(1).split('/').filter(Boolean)) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = isRecord(node) ? node[token] : undefined;
  }
  return deref(root, node, depth + 1);
}

/** The schema itself and the branches of its allOf/anyOf/oneOf, dereferenced. */
function branches(root: JsonSchema, s: JsonSchema | undefined): JsonSchema[] {
  if (!s) return [];
  const out = [s];
  for (const k of ['allOf', 'anyOf', 'oneOf']) {
    const list = s[k];
    if (Array.isArray(list)) for (const b of list) out.push(...branches(root, deref(root, b)));
  }
  return out;
}

function childSchema(root: JsonSchema, s: JsonSchema, seg: string | number): JsonSchema | undefined {
  if (typeof seg === 'number') {
    const prefix = s.prefixItems;
    if (Array.isArray(prefix) && seg < prefix.length) return deref(root, prefix[seg]);
    if (Array.isArray(s.items)) return deref(root, s.items[seg]);
    return deref(root, s.items);
  }
  const props = s.properties;
  if (isRecord(props) && Object.hasOwn(props, seg)) return deref(root, props[seg]);
  const patterns = s.patternProperties;
  if (isRecord(patterns)) {
    for (const [re, sub] of Object.entries(patterns)) {
      try {
        if (new RegExp(re, 'u').test(seg)) return deref(root, sub);
      } catch {
        // A pattern this engine cannot compile suggests nothing.
      }
    }
  }
  return isRecord(s.additionalProperties) ? deref(root, s.additionalProperties) : undefined;
}

/** The sub-schema at `path` (property names and array indexes), if the contract says. */
export function schemaAt(root: JsonSchema, path: JSONPath): JsonSchema | undefined {
  let current: JsonSchema | undefined = deref(root, root);
  for (const seg of path) {
    if (!current) return undefined;
    let next: JsonSchema | undefined;
    for (const b of branches(root, current)) {
      next = childSchema(root, b, seg);
      if (next) break;
    }
    current = next;
  }
  return current;
}

/** The history pointer of a path: RFC 6901 with every array index as `*`. */
export function historyPointer(path: JSONPath): string {
  return path.map((seg) => `/${typeof seg === 'number' ? '*' : seg.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function typeOk(type: unknown, v: unknown): boolean {
  const types = Array.isArray(type) ? type : typeof type === 'string' ? [type] : null;
  if (!types) return true;
  return types.some((t) =>
    t === 'integer' ? Number.isInteger(v) : t === 'array' ? Array.isArray(v) : t === 'null' ? v === null : t === 'object' ? isRecord(v) : typeof v === t,
  );
}

/** Whether the field's schema still accepts `v` (the checks a suggestion can fail on). */
export function accepts(s: JsonSchema | undefined, v: unknown): boolean {
  if (!s) return true;
  if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) return false;
  if ('const' in s && JSON.stringify(s.const) !== JSON.stringify(v)) return false;
  if (!typeOk(s.type, v)) return false;
  if (typeof v === 'string') {
    if (typeof s.minLength === 'number' && v.length < s.minLength) return false;
    if (typeof s.maxLength === 'number' && v.length > s.maxLength) return false;
    if (typeof s.pattern === 'string') {
      try {
        if (!new RegExp(s.pattern, 'u').test(v)) return false;
      } catch {
        return true;
      }
    }
  }
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) return false;
    if (typeof s.maximum === 'number' && v > s.maximum) return false;
  }
  return true;
}

/** A field that takes free text: a string without a fixed set of values or a format. */
function freeText(s: JsonSchema | undefined): boolean {
  if (!s) return false;
  return s.type === 'string' && !Array.isArray(s.enum) && !('const' in s) && typeof s.format !== 'string';
}

const SOURCE_ORDER: ValueSource[] = ['used', 'default', 'enum', 'examples', 'skill'];

/**
 * The values suggested for one field, best first: what the project's earlier successful
 * runs used there (most used, then most recent) as long as the contract still accepts it,
 * then the contract's `default`, its `enum`/`const` in declared order, its `examples`, and
 * the skills' example prompts for a free-text field. A value is listed once, with all its
 * sources.
 */
export function rankValues(
  s: JsonSchema | undefined,
  used: readonly UsedValue[],
  skillExamples: readonly string[] = [],
  root: JsonSchema = s ?? {},
): ValueSuggestion[] {
  const out: ValueSuggestion[] = [];
  const byKey = new Map<string, ValueSuggestion>();
  const add = (value: unknown, source: ValueSource, usage?: UsedValue) => {
    if (value === undefined) return;
    const key = JSON.stringify(value);
    const found = byKey.get(key);
    if (found) {
      if (!found.sources.includes(source)) found.sources.push(source);
      return;
    }
    const item: ValueSuggestion = { value, sources: [source], ...(usage ? { used: { count: usage.count, last_used_at: usage.last_used_at } } : {}) };
    byKey.set(key, item);
    out.push(item);
  };
  const sorted = [...used].sort((a, b) => b.count - a.count || (a.last_used_at < b.last_used_at ? 1 : a.last_used_at > b.last_used_at ? -1 : 0));
  for (const u of sorted) if (accepts(s, u.value)) add(u.value, 'used', u);
  const variants = branches(root, s);
  for (const b of variants) if ('default' in b) add(b.default, 'default');
  for (const b of variants) {
    if (Array.isArray(b.enum)) for (const e of b.enum) add(e, 'enum');
    if ('const' in b) add(b.const, 'enum');
  }
  for (const b of variants) if (Array.isArray(b.examples)) for (const e of b.examples) if (accepts(s, e)) add(e, 'examples');
  if (freeText(s)) for (const text of skillExamples) if (accepts(s, text)) add(text, 'skill');
  for (const item of out) item.sources.sort((a, b) => SOURCE_ORDER.indexOf(a) - SOURCE_ORDER.indexOf(b));
  return out;
}

/** Properties the object's schema declares that it does not have yet: required first, then
 * in declared order. */
export function rankKeys(s: JsonSchema | undefined, root: JsonSchema, present: ReadonlySet<string>): KeySuggestion[] {
  const out: KeySuggestion[] = [];
  const seen = new Set<string>();
  const required = new Set<string>();
  const variants = branches(root, s);
  for (const b of variants) if (Array.isArray(b.required)) for (const r of b.required) if (typeof r === 'string') required.add(r);
  for (const b of variants) {
    if (!isRecord(b.properties)) continue;
    for (const [key, sub] of Object.entries(b.properties)) {
      if (present.has(key) || seen.has(key)) continue;
      seen.add(key);
      const d = deref(root, sub);
      out.push({ key, required: required.has(key), ...(typeof d?.description === 'string' ? { description: d.description } : {}) });
    }
  }
  return out.sort((a, b) => Number(b.required) - Number(a.required));
}

const snippetEscape = (text: string) => text.replace(/[\\$}]/g, (c) => `\\${c}`);

function describeSources(v: ValueSuggestion): string {
  return v.sources
    .map((src) =>
      src === 'used'
        ? `used in ${v.used?.count ?? 0} earlier run${v.used?.count === 1 ? '' : 's'}`
        : src === 'skill'
          ? 'skill example'
          : src === 'examples'
            ? 'example'
            : src,
    )
    .join(' · ');
}

/** The value a new property starts with: its default, else an empty value of its type. */
function placeholder(s: JsonSchema | undefined, ranked: ValueSuggestion[]): { text: string; retrigger: boolean } {
  if (s && 'default' in s) return { text: snippetEscape(JSON.stringify(s.default)), retrigger: false };
  if (ranked.length > 0) return { text: '$1', retrigger: true };
  const type = Array.isArray(s?.type) ? s.type[0] : s?.type;
  if (type === 'string') return { text: '"$1"', retrigger: false };
  if (type === 'array') return { text: '[$1]', retrigger: false };
  if (type === 'object') return { text: '{$1}', retrigger: false };
  if (type === 'boolean') return { text: '${1:false}', retrigger: false };
  if (type === 'number' || type === 'integer') return { text: '${1:0}', retrigger: false };
  return { text: '$1', retrigger: false };
}

function historyFor(ctx: SuggestContext, path: JSONPath): UsedValue[] {
  const pointer = historyPointer(path);
  return ctx.history?.find((h) => h.pointer === pointer)?.values ?? [];
}

const isScalarNode = (n: Node | undefined): n is Node => !!n && (n.type === 'string' || n.type === 'number' || n.type === 'boolean' || n.type === 'null');

/** The completions at `offset` in `text`, or null where there is nothing to suggest. */
export function completionsAt(text: string, offset: number, ctx: SuggestContext): CompletionResult | null {
  const loc = getLocation(text, offset);
  const root = ctx.schema ?? {};
  const prev = loc.previousNode;
  const touching = prev && prev.offset <= offset && offset <= prev.offset + prev.length ? prev : undefined;

  if (loc.isAtPropertyKey) {
    const objectPath = loc.path.slice(0, -1);
    const objectSchema = schemaAt(root, objectPath);
    const tree = parseTree(text);
    const objectNode = tree ? (objectPath.length ? findNodeAtLocation(tree, objectPath) : tree) : undefined;
    const present = new Set<string>();
    for (const prop of objectNode?.type === 'object' ? (objectNode.children ?? []) : []) {
      const keyNode = prop.children?.[0];
      if (keyNode && keyNode.offset !== touching?.offset && typeof keyNode.value === 'string') present.add(keyNode.value);
    }
    const keys = rankKeys(objectSchema, root, present);
    if (keys.length === 0) return null;
    // jsonc-parser reports a key under the cursor as a 'property' node (its quotes included).
    const key = touching && (touching.type === 'property' || touching.type === 'string') ? touching : undefined;
    const start = key ? key.offset : offset;
    const end = key ? key.offset + key.length : offset;
    const hasColon = /^\s*:/.test(text.slice(end));
    const items = keys.map((k): Completion => {
      const sub = schemaAt(root, [...objectPath, k.key]);
      const ranked = rankValues(sub, historyFor(ctx, [...objectPath, k.key]), ctx.skillExamples, root);
      const value = placeholder(sub, ranked);
      const quoted = snippetEscape(JSON.stringify(k.key));
      return {
        label: k.key,
        insertText: hasColon ? quoted : `${quoted}: ${value.text}`,
        snippet: true,
        retrigger: !hasColon && value.retrigger,
        detail: k.required ? 'required' : 'optional',
        ...(k.description ? { documentation: k.description } : {}),
        kind: 'property',
      };
    });
    return { start, end, items };
  }

  const path = loc.path;
  if (path.length === 0) return null;
  const sub = schemaAt(root, path);
  const ranked = rankValues(sub, historyFor(ctx, path), ctx.skillExamples, root);
  if (ranked.length === 0) return null;
  const replace = isScalarNode(touching) ? touching : undefined;
  return {
    start: replace ? replace.offset : offset,
    end: replace ? replace.offset + replace.length : offset,
    items: ranked.map((v) => {
      const json = JSON.stringify(v.value);
      return { label: json, insertText: json, snippet: false, retrigger: false, detail: describeSources(v), kind: 'value' };
    }),
  };
}
