// zod schemas of the Playground request bodies and query parameters (spec 4.3, and the
// decisions on its "not shown" gaps in docs/playground-api.md).
import { z } from 'zod';
import type { CreateRunBody, CreateSessionBody, InputPart } from '../../../shared/playground.ts';
import type { ResumeBody } from '../service.ts';
import { changedFileProblem } from '../paths.ts';

const jsonObject = z.record(z.string(), z.unknown());

function isUri(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

const filePart = z
  .strictObject({
    kind: z.literal('file'),
    name: z.string().optional(),
    mime_type: z.string().optional(),
    bytes_base64: z.base64('bytes_base64 must be standard base64').optional(),
    uri: z.string().refine(isUri, 'uri must be an absolute URI').optional(),
  })
  .refine((p) => (p.bytes_base64 === undefined) !== (p.uri === undefined), {
    message: 'a file part carries exactly one of bytes_base64 or uri (spec 4.1 rule 3)',
  });

/** spec 2.5, 2.6: text, data (a JSON object; its optional `schema` names the contract) and file. */
export const InputPartSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), text: z.string() }),
  z.strictObject({ kind: z.literal('data'), data: jsonObject }),
  filePart,
]);

const parts = z.array(InputPartSchema).min(1, 'give at least one part');

const changedFile = z.string().superRefine((p, ctx) => {
  const problem = changedFileProblem(p);
  if (problem) ctx.addIssue({ code: 'custom', message: `changed file '${p}' ${problem} (project-relative paths only)` });
});

export const CreateSessionSchema = z.strictObject({ title: z.string().max(200).optional() });

export const CreateRunSchema = z.strictObject({
  parts,
  metadata: jsonObject.optional(),
  changed_files: z.array(changedFile).max(1000).optional(),
  revision: z.string().max(200).optional(),
});

export const ResumeSchema = z.strictObject({ parts, metadata: jsonObject.optional() });

export const RerunSchema = z.strictObject({});

export const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).optional(),
  /** Sessions: a text the title or any run's input text contains. */
  q: z.string().max(200).optional(),
});

/** The transcript pages forward, oldest turn first, up to 500 turns a page. */
export const TranscriptQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(200),
  cursor: z.string().min(1).optional(),
});

export const RenameSessionSchema = z.strictObject({
  title: z
    .string()
    .transform((t) => t.trim())
    .pipe(z.string().min(1, 'a title needs at least one character').max(200)),
});

/** Comparison options (docs/playground-api.md): `ignore` given once per glob. */
export const CompareOptionsSchema = z.object({
  ignore: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
    .pipe(z.array(z.string().min(1, 'an ignore glob must not be empty').max(500)).max(50, 'at most 50 ignore globs')),
  tolerance: z.coerce.number().finite().min(0).max(1e12).default(0),
  arrays: z.enum(['ordered', 'set']).default('ordered'),
});

export const CompareQuerySchema = CompareOptionsSchema.extend({
  left: z.string({ error: 'left (the baseline run id) is required' }),
  right: z.string({ error: 'right (the run compared with it) is required' }),
});

/** An SSE cursor: a non-negative integer seq. */
export const SeqSchema = z.coerce.number().int().min(0);

// The zod output types are structurally the wire types; these casts pin them.
export type ParsedCreateRun = CreateRunBody & { parts: InputPart[] };
export type ParsedResume = ResumeBody;
export type ParsedCreateSession = CreateSessionBody;
