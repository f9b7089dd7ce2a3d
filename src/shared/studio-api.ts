// Boundary: studio <-> renderer. The studio's unversioned paths (spec 9.3; docs/studio-api.md)
// and its project views under /api/playground/v1: GET /api/project, GET /api/project/file,
// POST /api/save, GET /source-targets/{node}, and the runtime child's state (GET /runtime,
// /api/runtime). Replies parse leniently (unknown keys are
// dropped); requests strictly.
import { z } from 'zod';
import { RuntimeSchemas, type ProjectDiagnostic } from './runtime-contract.ts';

/** A problem in the project, with where it is: the runtime's diagnostics, shown unchanged. */
export const ProjectDiagnosticSchema = RuntimeSchemas.ProjectDiagnostic;
export type { ProjectDiagnostic };

export const TargetKindSchema = z.enum(['add_node', 'function', 'factory', 'subgraph', 'branch', 'route_from', 'route_to', 'evaluator', 'evaluator_function']);
export type TargetKind = z.infer<typeof TargetKindSchema>;

export const SourceTargetSchema = z.object({
  kind: TargetKindSchema,
  /** Project-relative, forward slashes. */
  path: z.string(),
  line: z.number().int(),
  column: z.number().int(),
  end_line: z.number().int(),
  /** The target's first lines, trimmed. */
  snippet: z.string(),
  /** sha256 of the file's text as analysed. */
  file_sha256: z.string(),
});
export type SourceTarget = z.infer<typeof SourceTargetSchema>;

/** GET /api/playground/v1/source-targets/{node_id} (spec 4.3). */
export const SourceTargetsReplySchema = z.object({ node_id: z.string(), targets: z.array(SourceTargetSchema) });
export type SourceTargetsReply = z.infer<typeof SourceTargetsReplySchema>;

export const ProjectStatusSchema = z.object({
  name: z.string(),
  dir: z.string(),
  /** Files changed since the runtime last loaded the project (applied before the next run). */
  pending_changes: z.array(z.string()),
  /** `loading` while changes are being applied. */
  state: z.enum(['ready', 'loading', 'invalid']),
  diagnostics: z.array(ProjectDiagnosticSchema),
  /** When the diagnostics (or the last successful load) were learned. */
  checked_at: z.string().nullable(),
});
export type ProjectStatus = z.infer<typeof ProjectStatusSchema>;

/** GET /api/project: the status, the project's files, and the code fingerprint of the files
 * on disk (a run's `code_fingerprint` compares with it). */
export const ProjectViewSchema = ProjectStatusSchema.extend({
  files: z.array(z.string()),
  fingerprint: z.string(),
  file_sha256: z.record(z.string(), z.string()),
  /** The problems of the dataset files (evals/*.jsonl, docs/evaluation.md), beside the
   * manifest's: they never make the project invalid (an extension; absent from older studios). */
  dataset_diagnostics: z
    .array(
      z.object({ file: z.string(), line: z.number().int().optional(), column: z.number().int().optional(), field: z.string().optional(), message: z.string() }),
    )
    .optional(),
});
export type ProjectView = z.infer<typeof ProjectViewSchema>;

/** GET /api/project/file?path=P[&run=RUN]: `run_id` when read as that run ran. */
export const ProjectFileSchema = z.object({
  path: z.string(),
  content: z.string(),
  sha256: z.string(),
  size: z.number().int(),
  run_id: z.string().optional(),
});
export type ProjectFile = z.infer<typeof ProjectFileSchema>;

/** The largest file the source view opens and /api/save writes. */
export const MAX_SOURCE_BYTES = 2 * 1024 * 1024;

/** POST /api/save. */
export const SaveRequestSchema = z.strictObject({
  path: z.string().min(1).max(1024),
  content: z.string().max(MAX_SOURCE_BYTES),
  /** The sha256 of the file as the editor opened it: a save over a newer version on disk is refused (409). */
  base_sha256: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .optional(),
});
export type SaveRequest = z.infer<typeof SaveRequestSchema>;

export const SaveReplySchema = z.object({ path: z.string(), sha256: z.string(), size: z.number().int() });
export type SaveReply = z.infer<typeof SaveReplySchema>;

/** The runtime child's states (src/main/studio/child/lifecycle.ts holds the transitions;
 * docs/architecture.md shows them). */
export const RUNTIME_CHILD_STATES = ['idle', 'starting', 'ready', 'restarting', 'backoff', 'stopping', 'stopped'] as const;
export type RuntimeChildState = (typeof RUNTIME_CHILD_STATES)[number];

/** The supervisor's view of its runtime child. */
export const RuntimeStatusSchema = z.object({
  state: z.enum(RUNTIME_CHILD_STATES),
  url: z.string().nullable(),
  pid: z.number().int().nullable(),
  port: z.number().int().nullable(),
  generation: z.number().int(),
  restarts: z.number().int(),
  consecutive_failures: z.number().int(),
  last_exit: z.object({ code: z.number().int().nullable(), signal: z.string().nullable(), at: z.string() }).nullable(),
  last_error: z.string().nullable(),
});
export type RuntimeStatus = z.infer<typeof RuntimeStatusSchema>;

/** GET /runtime and /api/runtime: the supervisor's view, or `disabled` for a studio started
 * without a runtime (tests, bundle-only use). */
export const RuntimeStatusReplySchema = z.union([RuntimeStatusSchema, z.object({ state: z.literal('disabled') })]);
export type RuntimeStatusReply = z.infer<typeof RuntimeStatusReplySchema>;

/** One trace sink of the runtime child as its GET /api/v1/status shows it (docs/runtime-traces.md):
 * the OpenTelemetry sink's exporter state and buffer, for example. Read leniently: each sink
 * has fields of its own. */
export const TraceSinkStateSchema = z.looseObject({
  state: z.string().optional(),
  endpoint: z.string().optional(),
  protocol: z.string().optional(),
  sampler: z.string().optional(),
  exported: z.number().optional(),
  buffered: z.number().optional(),
  dropped: z.number().optional(),
  failed_exports: z.number().optional(),
  last_error: z.string().nullable().optional(),
});
export type TraceSinkState = z.infer<typeof TraceSinkStateSchema>;

/** GET /api/runtime/trace-sinks: where the runtime child's trace spans go, by sink name, or why
 * that is not known now (`available` false: the runtime is not running or did not answer). */
export const TraceSinksReplySchema = z.object({
  available: z.boolean(),
  trace_sinks: z.record(z.string(), TraceSinkStateSchema),
  reason: z.string().nullable(),
});
export type TraceSinksReply = z.infer<typeof TraceSinksReplySchema>;

/** The connection profile (docs/studio-api.md, "Connection profile"): the header the Playground
 * sends to its runtime instead of the studio's own credential, to call it as a real caller. */
export const CONNECTION_VALUE_MAX_BYTES = 8 * 1024;
/** Headers a profile may not set: hop-by-hop (RFC 9110 7.6.1), the ones fetch or the A2A client
 * manage, and browser-only ones. */
export const FORBIDDEN_CONNECTION_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'content-type',
  'content-encoding',
  'accept',
  'accept-encoding',
  'cookie',
  'set-cookie',
  'expect',
  'origin',
  'referer',
]);
/** RFC 9110 5.6.2: a field name is a token. */
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export const ConnectionHeaderSchema = z
  .string()
  .min(1, 'give the header to send, e.g. X-API-Key or Authorization')
  .max(100, 'the header name is longer than 100 characters')
  .regex(HEADER_TOKEN, "the header name must be an HTTP token (letters, digits and !#$%&'*+.^_`|~-, no spaces or colons)")
  .refine((h) => {
    const lower = h.toLowerCase();
    return !FORBIDDEN_CONNECTION_HEADERS.has(lower) && !lower.startsWith('proxy-') && !lower.startsWith('sec-');
  }, 'this header is managed by the connection itself (hop-by-hop, body or browser header) and cannot carry a credential');

/** Never echoed in an error: the messages name the rule, not the value. */
export const ConnectionValueSchema = z
  .string()
  .transform((v) => v.trim())
  .refine((v) => v.length > 0, 'give the value to send (a key, or Bearer <token>)')
  .refine((v) => !/[\r\n]/.test(v), 'the value may not contain line breaks')
  .refine((v) => /^[\t\x20-\x7e]*$/.test(v), 'the value may contain printable ASCII characters only')
  .refine((v) => v.length <= CONNECTION_VALUE_MAX_BYTES, 'the value is longer than 8 KiB');

/** PUT /api/runtime/connection. */
export const ConnectionRequestSchema = z.strictObject({ header: ConnectionHeaderSchema, value: ConnectionValueSchema });
export type ConnectionRequest = z.input<typeof ConnectionRequestSchema>;

/** GET/PUT/DELETE /api/runtime/connection: the header and a masked hint (`…x7Qa`), never the
 * value; both null when the Playground calls the runtime as the studio. */
export const ConnectionReplySchema = z.object({ header: z.string().nullable(), hint: z.string().nullable() });
export type ConnectionReply = z.infer<typeof ConnectionReplySchema>;
