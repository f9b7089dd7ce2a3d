// Datasets and their assertions (docs/evaluation.md): the shapes the dataset files in a
// project's `evals/` folder hold, the studio reads and writes, and the experiment runner and
// `agent-studio eval` check runs against. A dataset is `evals/<name>.jsonl`: an optional first
// line `{"dataset": {...}}` (its description), then one case per line.
import { z } from 'zod';
import { RUN_STATES } from './playground.ts';

const jsonObject = z.record(z.string(), z.unknown());

/** A dataset's name: its file is `evals/<name>.jsonl`. */
export const DatasetNameSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a dataset name is letters, digits, ".", "_" and "-", starting with a letter or digit');

/** An input part as a dataset file writes it: text, data, or a file beside the dataset
 * (`path` relative to the `evals/` folder) or at a URI. */
export const CasePartSchema = z.union([
  z.strictObject({ kind: z.literal('text'), text: z.string() }),
  z.strictObject({ kind: z.literal('data'), data: jsonObject }),
  z.strictObject({
    kind: z.literal('file'),
    path: z.string().min(1).optional(),
    uri: z.string().url().optional(),
    name: z.string().optional(),
    mime_type: z.string().optional(),
  }),
]);
export type CasePart = z.infer<typeof CasePartSchema>;

/** The input of a turn: `text` as a shorthand for one text part, or `parts`. */
export const CaseInputSchema = z
  .strictObject({ text: z.string().optional(), parts: z.array(CasePartSchema).min(1).optional(), metadata: jsonObject.optional() })
  .refine((i) => (i.text === undefined) !== (i.parts === undefined), { message: 'give either "text" or "parts"' });
export type CaseInput = z.infer<typeof CaseInputSchema>;

const CompareKnobs = {
  ignore: z.array(z.string()).optional(),
  tolerance: z.number().min(0).optional(),
  arrays: z.enum(['ordered', 'set']).optional(),
};

/** Which DataPart of the output a data assertion reads: the first with this `schema` id,
 * else the first DataPart. */
const partSelector = { part: z.string().optional() };

export const AssertionSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('text_equals'), value: z.string(), ignore_case: z.boolean().optional() }),
  z.strictObject({ type: z.literal('text_contains'), value: z.string(), ignore_case: z.boolean().optional() }),
  z.strictObject({ type: z.literal('text_not_contains'), value: z.string(), ignore_case: z.boolean().optional() }),
  z.strictObject({
    type: z.literal('text_regex'),
    pattern: z.string(),
    flags: z
      .string()
      .regex(/^[imsu]*$/)
      .optional(),
  }),
  z.strictObject({ type: z.literal('json_path_equals'), path: z.string(), value: z.unknown(), ...partSelector }),
  z.strictObject({
    type: z.literal('json_path_matches'),
    path: z.string(),
    pattern: z.string(),
    flags: z
      .string()
      .regex(/^[imsu]*$/)
      .optional(),
    ...partSelector,
  }),
  z.strictObject({ type: z.literal('json_path_exists'), path: z.string(), exists: z.boolean().optional(), ...partSelector }),
  z.strictObject({ type: z.literal('json_schema'), schema: jsonObject.optional(), schema_file: z.string().optional(), ...partSelector }),
  z.strictObject({ type: z.literal('data_schema_id'), value: z.string() }),
  z.strictObject({ type: z.literal('final_state'), state: z.enum(RUN_STATES), error_code: z.string().optional(), reason: z.string().optional() }),
  z.strictObject({ type: z.literal('latency_under'), ms: z.number().positive() }),
  z.strictObject({ type: z.literal('matches_reference'), ...CompareKnobs }),
  z.strictObject({ type: z.literal('evaluator_at_least'), evaluator: z.string(), min: z.number() }),
  z.strictObject({ type: z.literal('llm_judge'), rubric: z.string().min(1), min: z.number().min(0).max(1).optional() }),
]);
export type Assertion = z.infer<typeof AssertionSchema>;
export type AssertionType = Assertion['type'];

/** What a case expects: the reference output (a run's actual output when the case was made
 * from a run) and/or assertions. */
export const CaseExpectedSchema = z.strictObject({
  output: z
    .strictObject({
      status: z.enum(RUN_STATES).optional(),
      parts: z.array(z.union([z.strictObject({ kind: z.literal('text'), text: z.string() }), z.strictObject({ kind: z.literal('data'), data: jsonObject })])),
    })
    .optional(),
  assertions: z.array(AssertionSchema).optional(),
});
export type CaseExpected = z.infer<typeof CaseExpectedSchema>;

export const DatasetCaseSchema = z.strictObject({
  /** Unique within the dataset; results and compares pair cases by it. */
  id: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[^\s]+$/, 'a case id has no spaces'),
  description: z.string().optional(),
  tags: z.array(z.string()).optional(),
  /** Earlier user turns, sent in order on the case's conversation before its input. */
  history: z.array(CaseInputSchema).optional(),
  input: CaseInputSchema,
  expected: CaseExpectedSchema.optional(),
});
export type DatasetCase = z.infer<typeof DatasetCaseSchema>;

export const DatasetHeaderSchema = z.strictObject({
  dataset: z.strictObject({ description: z.string().optional(), tags: z.array(z.string()).optional() }),
});
export type DatasetHeader = z.infer<typeof DatasetHeaderSchema>;

/** A problem in a dataset file, at its line (1-based). */
export const DatasetDiagnosticSchema = z.object({
  file: z.string(),
  line: z.number().int().optional(),
  column: z.number().int().optional(),
  field: z.string().optional(),
  message: z.string(),
});
export type DatasetDiagnostic = z.infer<typeof DatasetDiagnosticSchema>;

export const DatasetSchema = z.object({
  name: DatasetNameSchema,
  /** Project-relative file. */
  file: z.string(),
  description: z.string().nullable(),
  tags: z.array(z.string()),
  cases: z.array(DatasetCaseSchema),
  /** sha256 of the file's bytes: the dataset's version. */
  hash: z.string(),
  diagnostics: z.array(DatasetDiagnosticSchema),
});
export type Dataset = z.infer<typeof DatasetSchema>;

/** The result of one assertion on one run. `skipped` says why it could not be checked (an
 * LLM judge with no real model); `error` is an assertion that cannot be evaluated (a bad
 * regular expression or path): it counts as a failure. */
export const AssertionResultSchema = z.object({
  type: z.string(),
  label: z.string(),
  status: z.enum(['pass', 'fail', 'skipped', 'error']),
  message: z.string(),
});
export type AssertionResult = z.infer<typeof AssertionResultSchema>;
