// zod schemas of the management API's parameters (spec 2.2-2.4, 4.2), as the Playground
// validates its own (src/main/playground/http/schemas.ts). The messages are the API's: a
// failure becomes INVALID_PARAM with the field it concerns (docs/management-api.md).
import { z, type ZodType } from 'zod';
import { ManagementError } from './envelope.ts';

/** Why `url` cannot be the card's URL, or null when it can (spec 4.2 rule 3). */
function cardUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "'url' must be an absolute http(s) URL.";
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || !parsed.hostname) return "'url' must be an absolute http(s) URL.";
  // The URL parser would quietly drop spaces and line breaks; a card must serve exactly
  // what was asked for, and the same value must come back from .env after a restart.
  if (/\s/.test(url) || [...url].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    return "'url' must not contain spaces or control characters: percent-encode them.";
  }
  return null;
}

/** A string field that is required: "'k' is required." when absent, `wrongType` otherwise. */
function requiredString(key: string, wrongType: string) {
  return z.string({ error: (issue) => (issue.input === undefined ? `'${key}' is required.` : wrongType) });
}

export const CardUrlSchema = z.object({
  url: requiredString('url', "'url' must be a string.").superRefine((url, ctx) => {
    const problem = cardUrlProblem(url);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
});

export const MEMORY_MUTABLE = ['summarize', 'window_size', 'summarize_threshold'] as const;
export const MEMORY_IMMUTABLE = ['enabled', 'backend', 'postgres_dsn'] as const;

function positiveInteger(key: string) {
  const error = `'${key}' must be a positive integer.`;
  return z.number({ error }).int({ error }).positive({ error });
}

/** PATCH /api/v1/memory/config: only the changeable fields, at least one of them. */
export const MemoryPatchSchema = z
  .strictObject(
    {
      summarize: z.boolean({ error: "'summarize' must be a boolean." }).optional(),
      window_size: positiveInteger('window_size').optional(),
      summarize_threshold: positiveInteger('summarize_threshold').optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? `Unknown field(s): ${issue.keys.join(', ')}. Changeable: ${MEMORY_MUTABLE.join(', ')}.` : undefined,
    },
  )
  .refine((v) => Object.keys(v).length > 0, `Give at least one of ${MEMORY_MUTABLE.join(', ')}.`);

export type MemoryPatch = z.infer<typeof MemoryPatchSchema>;

/** DELETE /api/v1/memory/threads needs `all=true`. */
export const DeleteAllThreadsQuerySchema = z.object({
  all: z.literal('true', {
    error: 'Deleting every thread needs the query all=true; to delete one thread use DELETE /api/v1/memory/threads/{thread_id}.',
  }),
});

/** GET /api/v1/memory/threads: an optional `user`, `limit` and `cursor` (docs/management-api.md,
 * extensions; their values are checked in thread-pages.ts). The empty user names the threads
 * made while caller authentication was off (docs/security.md). */
export const ListThreadsQuerySchema = z.object({
  user: z.string({ error: "'user' must be given once, as a string." }).optional(),
  limit: z.string({ error: "'limit' must be given once, as an integer." }).optional(),
  cursor: z.string({ error: "'cursor' must be given once." }).optional(),
});

const agentIdField = (key: string) =>
  requiredString(key, `'${key}' must be a non-empty string.`).refine((v) => v.trim() !== '', `'${key}' must be a non-empty string.`);

export const MigrateAgentIdSchema = z
  .object({ old_id: agentIdField('old_id'), new_id: agentIdField('new_id') })
  .refine((v) => v.old_id !== v.new_id, { message: "'old_id' and 'new_id' must differ.", path: ['new_id'] });

/** The value parsed by `schema`, or INVALID_PARAM naming the field of the first problem
 * (an unknown field first, as the API has always reported it). */
export function parseParams<T>(schema: ZodType<T>, value: unknown): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues.find((i) => i.code === 'unrecognized_keys') ?? r.error.issues[0];
  const extra = issue.code === 'unrecognized_keys' ? { fields: issue.keys } : issue.path.length ? { field: String(issue.path[0]) } : {};
  throw new ManagementError('INVALID_PARAM', issue.message, extra);
}
