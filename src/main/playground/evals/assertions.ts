// The built-in assertions of a dataset case (docs/evaluation.md, "Assertions"), checked
// against one run's outcome. Each answers pass / fail / skipped / error with a message a
// person can act on: what was expected, what the run gave.
import { JSONPath } from 'jsonpath-plus';
import { createContractAjv, describeContractErrors, contractProblemsText } from '../../../shared/contracts.ts';
import { DEFAULT_COMPARE_OPTIONS, type CompareOptions } from '../../../shared/compare.ts';
import type { Assertion, AssertionResult, CaseExpected } from '../../../shared/datasets.ts';
import type { RunStatus, ScoreEntry, TaggedPart } from '../../../shared/playground.ts';
import { compareParts } from '../compare/parts.ts';
import { canonicalJson, ignoreFilter } from '../compare/json-diff.ts';

/** What a case's run gave, as the assertions read it. */
export interface CaseOutcome {
  status: RunStatus;
  reason: string | null;
  /** The spec 7.2 code of a failed run, when it gave one. */
  error_code: string | null;
  output_parts: readonly TaggedPart[];
  duration_ms: number | null;
  scores: readonly ScoreEntry[];
}

/** A rubric judged by a real model: a score in [0, 1] and why. */
export type Judge = (rubric: string, outcome: CaseOutcome) => Promise<{ score: number; reason: string }>;

export interface AssertionContext {
  reference?: CaseExpected['output'];
  /** A JSON schema file of the project (`schema_file`), or null when it cannot be read. */
  readSchemaFile?: (path: string) => Record<string, unknown> | null;
  /** The configured real model, or null when none is (the offline scripted model does not count). */
  judge?: Judge | null;
}

type DataPart = Extract<TaggedPart, { kind: 'data' }>;

const MAX_SHOWN = 160;
const show = (v: unknown): string => {
  const s = typeof v === 'string' ? JSON.stringify(v) : canonicalJson(v);
  return s === undefined ? 'nothing' : s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s;
};

/** The run's answer text: its text parts joined by newlines. */
export const outputText = (parts: readonly TaggedPart[]): string =>
  parts
    .filter((p): p is Extract<TaggedPart, { kind: 'text' }> => p.kind === 'text')
    .map((p) => p.text)
    .join('\n');

function pickData(parts: readonly TaggedPart[], schemaId: string | undefined): DataPart | null {
  const data = parts.filter((p): p is DataPart => p.kind === 'data');
  if (schemaId === undefined) return data[0] ?? null;
  return data.find((p) => p.data.schema === schemaId) ?? null;
}

const noData = (schemaId: string | undefined) => (schemaId ? `the output has no DataPart with schema "${schemaId}"` : 'the output has no DataPart');

/** A short name of an assertion for tables and JUnit: `text_contains "refund"`. */
export function assertionLabel(a: Assertion): string {
  switch (a.type) {
    case 'text_equals':
    case 'text_contains':
    case 'text_not_contains':
    case 'data_schema_id':
      return `${a.type} ${show(a.value)}`;
    case 'text_regex':
      return `text_regex /${a.pattern}/${a.flags ?? ''}`;
    case 'json_path_equals':
      return `${a.path} = ${show(a.value)}`;
    case 'json_path_matches':
      return `${a.path} ~ /${a.pattern}/${a.flags ?? ''}`;
    case 'json_path_exists':
      return `${a.path} ${a.exists === false ? 'absent' : 'exists'}`;
    case 'json_schema':
      return `json_schema ${a.schema_file ?? '(inline)'}`;
    case 'final_state':
      return `final_state ${a.state}${a.error_code ? ` ${a.error_code}` : ''}`;
    case 'latency_under':
      return `latency < ${a.ms} ms`;
    case 'matches_reference':
      return 'matches_reference';
    case 'evaluator_at_least':
      return `${a.evaluator} >= ${a.min}`;
    case 'llm_judge':
      return `llm_judge ${show(a.rubric)}`;
  }
}

function regex(pattern: string, flags: string | undefined): RegExp | string {
  try {
    return new RegExp(pattern, flags);
  } catch (e) {
    return `invalid regular expression /${pattern}/: ${(e as Error).message}`;
  }
}

function query(path: string, json: unknown): unknown[] | string {
  if (!path.startsWith('$')) return `a JSON path starts with "$": ${show(path)}`;
  try {
    return JSONPath({ path, json: json as object, wrap: true, eval: 'safe' }) as unknown[];
  } catch (e) {
    return `invalid JSON path ${show(path)}: ${(e as Error).message}`;
  }
}

const fold = (s: string, ignoreCase: boolean | undefined) => (ignoreCase ? s.toLowerCase() : s);

type Verdict = Pick<AssertionResult, 'status' | 'message'>;
const pass = (message: string): Verdict => ({ status: 'pass', message });
const fail = (message: string): Verdict => ({ status: 'fail', message });
const error = (message: string): Verdict => ({ status: 'error', message });

function checkSync(a: Exclude<Assertion, { type: 'llm_judge' }>, o: CaseOutcome, ctx: AssertionContext): Verdict {
  const text = outputText(o.output_parts);
  switch (a.type) {
    case 'text_equals':
      return fold(text, a.ignore_case) === fold(a.value, a.ignore_case)
        ? pass('the answer is the expected text')
        : fail(`expected the answer ${show(a.value)}, got ${show(text)}`);
    case 'text_contains':
      return fold(text, a.ignore_case).includes(fold(a.value, a.ignore_case))
        ? pass(`the answer contains ${show(a.value)}`)
        : fail(`expected the answer to contain ${show(a.value)}, got ${show(text)}`);
    case 'text_not_contains':
      return fold(text, a.ignore_case).includes(fold(a.value, a.ignore_case))
        ? fail(`expected the answer not to contain ${show(a.value)}, got ${show(text)}`)
        : pass(`the answer does not contain ${show(a.value)}`);
    case 'text_regex': {
      const re = regex(a.pattern, a.flags);
      if (typeof re === 'string') return error(re);
      return re.test(text) ? pass(`the answer matches /${a.pattern}/`) : fail(`expected the answer to match /${a.pattern}/${a.flags ?? ''}, got ${show(text)}`);
    }
    case 'json_path_equals':
    case 'json_path_matches':
    case 'json_path_exists': {
      const part = pickData(o.output_parts, a.part);
      if (!part) return a.type === 'json_path_exists' && a.exists === false ? pass(`${noData(a.part)}, so ${a.path} is absent`) : fail(noData(a.part));
      const found = query(a.path, part.data);
      if (typeof found === 'string') return error(found);
      if (a.type === 'json_path_exists') {
        const want = a.exists !== false;
        if (want === found.length > 0) return pass(`${a.path} ${want ? 'exists' : 'is absent'}`);
        return fail(want ? `expected ${a.path} to exist in ${show(part.data)}` : `expected ${a.path} to be absent, found ${show(found[0])}`);
      }
      if (found.length === 0) return fail(`${a.path} matches nothing in ${show(part.data)}`);
      const value = found.length === 1 ? found[0] : found;
      if (a.type === 'json_path_equals') {
        return canonicalJson(value) === canonicalJson(a.value)
          ? pass(`${a.path} is ${show(a.value)}`)
          : fail(`expected ${a.path} to be ${show(a.value)}, got ${show(value)}`);
      }
      const re = regex(a.pattern, a.flags);
      if (typeof re === 'string') return error(re);
      const bad = found.find((v) => !re.test(typeof v === 'string' ? v : canonicalJson(v)));
      return bad === undefined
        ? pass(`${a.path} matches /${a.pattern}/`)
        : fail(`expected ${a.path} to match /${a.pattern}/${a.flags ?? ''}, got ${show(bad)}`);
    }
    case 'json_schema': {
      const schema = a.schema ?? (a.schema_file ? (ctx.readSchemaFile?.(a.schema_file) ?? null) : null);
      if (!schema) return error(a.schema_file ? `cannot read the schema file ${show(a.schema_file)}` : 'give "schema" or "schema_file"');
      const part = pickData(o.output_parts, a.part);
      if (!part) return fail(noData(a.part));
      let validate;
      try {
        validate = createContractAjv().compile(schema);
      } catch (e) {
        return error(`the schema does not compile: ${(e as Error).message}`);
      }
      if (validate(part.data)) return pass('the DataPart validates against the schema');
      return fail(`the DataPart does not validate: ${contractProblemsText(describeContractErrors(validate.errors))}`);
    }
    case 'data_schema_id': {
      const ids = o.output_parts.filter((p): p is DataPart => p.kind === 'data').map((p) => p.data.schema);
      return ids.includes(a.value)
        ? pass(`a DataPart has schema ${show(a.value)}`)
        : fail(`expected a DataPart with schema ${show(a.value)}, got ${ids.length ? ids.map(show).join(', ') : 'no DataPart'}`);
    }
    case 'final_state': {
      if (o.status !== a.state) return fail(`expected the run to end ${a.state}, it ended ${o.status}${o.reason ? ` (${o.reason})` : ''}`);
      if (a.reason && o.reason !== a.reason) return fail(`expected reason ${a.reason}, got ${o.reason ?? 'none'}`);
      if (a.error_code && o.error_code !== a.error_code) return fail(`expected errorCode ${a.error_code}, got ${o.error_code ?? 'none'}`);
      return pass(`the run ended ${a.state}${a.error_code ? ` with ${a.error_code}` : ''}`);
    }
    case 'latency_under':
      if (o.duration_ms === null) return fail('the run has no duration (it never ended)');
      return o.duration_ms < a.ms ? pass(`took ${o.duration_ms} ms (< ${a.ms})`) : fail(`took ${o.duration_ms} ms, expected under ${a.ms} ms`);
    case 'matches_reference':
      return matchesReference(a, o, ctx);
    case 'evaluator_at_least': {
      const entries = o.scores.filter((s) => s.evaluator === a.evaluator);
      if (entries.length === 0) return fail(`the evaluator ${show(a.evaluator)} gave no score on this run`);
      const low = entries.find((s) => s.score === null || s.score < a.min);
      if (low) return fail(`${a.evaluator} scored ${low.score ?? 'null'}${low.reason ? ` (${low.reason})` : ''}, expected at least ${a.min}`);
      return pass(`${a.evaluator} scored ${entries.map((s) => s.score).join(', ')} (>= ${a.min})`);
    }
  }
}

function matchesReference(a: Extract<Assertion, { type: 'matches_reference' }>, o: CaseOutcome, ctx: AssertionContext): Verdict {
  const ref = ctx.reference;
  if (!ref) return error('the case has no reference output (expected.output)');
  if (ref.status && ref.status !== o.status) return fail(`expected the run to end ${ref.status} as the reference did, it ended ${o.status}`);
  const opts: CompareOptions = {
    ...DEFAULT_COMPARE_OPTIONS,
    ...(a.ignore ? { ignore: a.ignore } : {}),
    ...(a.tolerance !== undefined ? { tolerance: a.tolerance } : {}),
    ...(a.arrays ? { arrays: a.arrays } : {}),
  };
  const cmp = compareParts({ parts: ref.parts, streamed: null }, { parts: o.output_parts, streamed: null }, opts, ignoreFilter(opts.ignore));
  if (cmp.equal) return pass('the output matches the reference');
  const diffs: string[] = [];
  for (const t of cmp.text) if (t.status !== 'equal') diffs.push(`text ${t.index + 1} ${t.status}`);
  for (const d of cmp.data) {
    if (d.status === 'changed')
      diffs.push(
        ...d.diff.changes
          .slice(0, 3)
          .map((c) => `${d.key}${c.path} ${c.op}${c.op !== 'add' ? ` ${show(c.old)}` : ''}${c.op !== 'remove' ? ` -> ${show(c.new)}` : ''}`),
      );
    else if (d.status !== 'equal') diffs.push(`DataPart ${d.key} ${d.status}`);
  }
  for (const f of cmp.files) if (f.status !== 'equal') diffs.push(`file ${f.key} ${f.status}`);
  return fail(`differs from the reference: ${diffs.slice(0, 5).join('; ')}${diffs.length > 5 ? `; and ${diffs.length - 5} more` : ''}`);
}

/** Checks one assertion. Never throws: an assertion that cannot be evaluated is `error`. */
export async function checkAssertion(a: Assertion, outcome: CaseOutcome, ctx: AssertionContext = {}): Promise<AssertionResult> {
  const label = assertionLabel(a);
  if (a.type === 'llm_judge') {
    if (!ctx.judge) return { type: a.type, label, status: 'skipped', message: 'no real model is configured (the offline scripted model cannot judge)' };
    try {
      const { score, reason } = await ctx.judge(a.rubric, outcome);
      const min = a.min ?? 0.5;
      return {
        type: a.type,
        label,
        ...(score >= min ? pass(`judged ${score} (>= ${min}): ${reason}`) : fail(`judged ${score}, expected at least ${min}: ${reason}`)),
      };
    } catch (e) {
      return { type: a.type, label, status: 'error', message: `the judge failed: ${(e as Error).message}` };
    }
  }
  try {
    return { type: a.type, label, ...checkSync(a, outcome, ctx) };
  } catch (e) {
    return { type: a.type, label, status: 'error', message: (e as Error).message };
  }
}

/** Checks a case's assertions in order. */
export async function checkAssertions(list: readonly Assertion[], outcome: CaseOutcome, ctx: AssertionContext = {}): Promise<AssertionResult[]> {
  const out: AssertionResult[] = [];
  for (const a of list) out.push(await checkAssertion(a, outcome, ctx));
  return out;
}
