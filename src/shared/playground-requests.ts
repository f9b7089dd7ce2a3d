// Boundary: client (the renderer, scripts) -> studio. The request bodies and query parameters
// of /api/playground/v1 (spec 4.3, and the decisions on its "not shown" gaps in
// docs/playground-api.md), parsed strictly by the studio's router: an unknown key is a 400
// `invalid_request`. The comparison options are in compare.ts, the bundle requests in
// bundle.ts. The router adds the check of each changed file's path
// (src/main/playground/http/schemas.ts): it needs the server's path rules.
import { ReplayOptionSchema } from './recordings.ts';
import { z } from 'zod';

const jsonObject = z.record(z.string(), z.unknown());

function isUri(value: string): boolean {
  try {
    new URL(value);
    return true;
  } catch {
    return false;
  }
}

/** The two forms a file part takes (spec 4.1 rule 3): bytes inline, or a uri by reference. */
type FileInputPart = { kind: 'file'; name?: string; mime_type?: string } & ({ bytes_base64: string } | { uri: string });

const FilePartSchema = z
  .strictObject({
    kind: z.literal('file'),
    name: z.string().optional(),
    mime_type: z.string().optional(),
    bytes_base64: z.base64('bytes_base64 must be standard base64').optional(),
    uri: z.string().refine(isUri, 'uri must be an absolute URI').optional(),
  })
  .refine((p) => (p.bytes_base64 === undefined) !== (p.uri === undefined), {
    message: 'a file part carries exactly one of bytes_base64 or uri (spec 4.1 rule 3)',
  })
  // The check above leaves exactly one of the two keys: the parsed part is one of the forms.
  .transform((p) => p as FileInputPart);

/** spec 2.5, 2.6: text, data (a JSON object; its optional `schema` names the contract) and file. */
export const InputPartSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('text'), text: z.string() }),
  z.strictObject({ kind: z.literal('data'), data: jsonObject }),
  FilePartSchema,
]);
export type InputPart = z.infer<typeof InputPartSchema>;

const parts = z.array(InputPartSchema).min(1, 'give at least one part');

/** POST /sessions. */
export const CreateSessionSchema = z.strictObject({ title: z.string().max(200).optional() });
export type CreateSessionBody = z.infer<typeof CreateSessionSchema>;

/** PATCH /sessions/{id}. */
export const RenameSessionSchema = z.strictObject({
  title: z
    .string()
    .transform((t) => t.trim())
    .pipe(z.string().min(1, 'a title needs at least one character').max(200)),
});
export type RenameSessionBody = z.input<typeof RenameSessionSchema>;

/** POST /sessions/{id}/runs. `changed_files`: project-relative paths (the router checks each). */
export const CreateRunSchema = z.strictObject({
  parts,
  metadata: jsonObject.optional(),
  changed_files: z.array(z.string()).max(1000).optional(),
  revision: z.string().max(200).optional(),
  /** This run's debugging (docs/playground-api.md, "Per-run step mode"): `step` pauses it before
   * every node, for this run only (the session's breakpoints still apply). */
  debug: z.strictObject({ step: z.boolean() }).optional(),
});
export type CreateRunBody = z.infer<typeof CreateRunSchema>;

/** POST /runs/{id}/resume. */
export const ResumeSchema = z.strictObject({ parts, metadata: jsonObject.optional() });
export type ResumeBody = z.infer<typeof ResumeSchema>;

/** POST /runs/{id}/branch (docs/playground-api.md, "Conversation branches"): the turn's message
 * as edited; without `metadata` the branch keeps the metadata the original turn had. */
export const BranchSchema = z.strictObject({ parts, metadata: jsonObject.optional(), revision: z.string().max(200).optional() });
export type BranchBody = z.infer<typeof BranchSchema>;

/** POST /runs/{id}/rerun: an empty object (or no body); `replay` answers the rerun's model
 * and tool calls from a recorded run (docs/playground-api.md, "Replay"). */
export const RerunSchema = z.strictObject({ replay: ReplayOptionSchema.optional() });

/** GET /sessions and GET /sessions/{id}/runs. */
export const ListQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).optional(),
  /** Sessions: a text the title or any run's input text contains. */
  q: z.string().max(200).optional(),
});

/** GET /sessions/{id}/transcript: pages forward, oldest turn first, up to 500 turns a page. */
export const TranscriptQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(200),
  cursor: z.string().min(1).optional(),
});

/** An SSE cursor (`Last-Event-ID` or `?after`): a non-negative integer seq. */
export const SeqSchema = z.coerce.number().int().min(0);
