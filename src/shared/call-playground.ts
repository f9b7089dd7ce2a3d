// The playground for one model call (docs/playground-api.md, "Playground for one call";
// D-100, D-101): a recorded model call's messages and parameters, edited and sent again to the
// project's configured model, and an edited prompt written back to the string or template
// literal it came from in the project's source.
//
// The send goes studio -> runtime: the model and its settings (MODEL_PROVIDER, keys) live only
// in the runtime process, which builds the configured chat model and calls it through its
// outbound pool at POST {DEBUG_BASE}/model-call (control token only, like the debugger's
// endpoints). Schemas only.
import { z } from 'zod';
import { RecordedMessageSchema, UsageSchema } from './recordings.ts';

/** The runtime's endpoint, under DEBUG_BASE (src/shared/thread-state.ts). */
export const MODEL_CALL_ROUTE = '/model-call';

/** The parameters a playground call may set; absent ones come from the project's manifest
 * (`model`) and environment as for the project's own calls. */
export const ModelCallParamsSchema = z.strictObject({
  /** The provider's model name (OPENAI_MODEL, ANTHROPIC_MODEL, GEMINI_MODEL otherwise). */
  model: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().max(1_000_000).optional(),
  /** Tool definitions (OpenAI function format or LangChain's), bound to the model. */
  tools: z.array(z.record(z.string(), z.unknown())).max(128).optional(),
});
export type ModelCallParams = z.infer<typeof ModelCallParamsSchema>;

/** Body of the runtime's POST {DEBUG_BASE}/model-call and of the Playground's POST /model-calls. */
export const ModelCallRequestSchema = z.strictObject({
  messages: z.array(RecordedMessageSchema).min(1).max(1000),
  params: ModelCallParamsSchema.default({}),
});
export type ModelCallRequest = z.infer<typeof ModelCallRequestSchema>;

/** What a playground call answered: the AI message (with its tool calls), usage, the model
 * that answered and how long it took; `error` when the provider refused or failed (the call
 * was made; the playground shows the error in place of an answer). */
export const ModelCallResultSchema = z.object({
  provider: z.string(),
  output_messages: z.array(RecordedMessageSchema),
  usage: UsageSchema.nullable(),
  response_model: z.string().nullable(),
  finish_reasons: z.array(z.string()),
  duration_ms: z.number(),
  error: z.string().nullable(),
});
export type ModelCallResult = z.infer<typeof ModelCallResultSchema>;
export const ModelCallReplySchema = z.object({ success: z.literal(true), data: ModelCallResultSchema });

/** Body of the Playground's POST /source-literals: where a prompt's text is written in the
 * project's source. */
export const SourceLiteralQuerySchema = z.strictObject({ text: z.string().min(1).max(200_000) });

/** A string or template literal in a project file whose text is the prompt's. */
export const SourceLiteralSchema = z.object({
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  kind: z.enum(['string', 'template']),
  /** The file's hash now: pass it back as `base_sha256` when applying. */
  sha256: z.string(),
});
export type SourceLiteral = z.infer<typeof SourceLiteralSchema>;

/** A prompt file of the manifest (`prompts`) whose text the prompt holds, from `start` to
 * `end` (character offsets in the prompt's text); the text before and after is the code's
 * (D-105). */
export const PromptFileMatchSchema = z.object({
  kind: z.literal('prompt_file'),
  /** The prompt's name in agent.json (`ctx.prompts[name]`). */
  name: z.string(),
  path: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  /** The file's hash now: pass it back as `base_sha256` when applying. */
  sha256: z.string(),
});
export type PromptFileMatch = z.infer<typeof PromptFileMatchSchema>;
/** Where a prompt's text is written: a literal, or a prompt file it holds. */
export const SourceMatchSchema = z.union([SourceLiteralSchema, PromptFileMatchSchema]);
export type SourceMatch = z.infer<typeof SourceMatchSchema>;

/** Body of POST /source-literals/apply: replace the literal at `path` (nearest `line`) whose
 * text is `original` with `edited`, refused when the file changed since `base_sha256`. With
 * `kind: "prompt_file"`, `path` is a manifest prompt file that `original` holds: the file gets
 * the part of `edited` between `original`'s unchanged text before and after it (D-105). */
export const ApplySourceRequestSchema = z.strictObject({
  kind: z.enum(['string', 'template', 'prompt_file']).optional(),
  path: z.string().min(1).max(1000),
  line: z.number().int().positive().optional(),
  original: z.string().min(1).max(200_000),
  edited: z.string().max(200_000),
  base_sha256: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ApplySourceRequest = z.infer<typeof ApplySourceRequestSchema>;

/** Reply of POST /source-literals. */
export const SourceLiteralsReplySchema = z.object({ literals: z.array(SourceMatchSchema) });
/** Reply of POST /source-literals/apply: the file as saved (the save path's answer). */
export const AppliedSourceSchema = z.object({ path: z.string(), sha256: z.string(), size: z.number() });
