// Recorded calls and replay (docs/runtime-traces.md, "Recorded calls"; docs/playground-api.md,
// "Replay"; D-91, D-92). Every call a studio run makes (a model call, `ctx.fetch`, MCP over
// HTTP, `callAgent`) is recorded as a span under its node, keyed so a replay can answer it:
// the node, the fan-out branch label, the call's index within that (node, branch) and a hash
// of its request. A global call order is not stable when fan-out branches call concurrently;
// the index within a branch is.
//
// The runtime reports calls as trace events (`model.call`, extended, and `outbound.call`); the
// studio keeps them with the run's events, each large body moved to the blob store and
// replaced by a BodyRef. A bundle carries a run's recording under the optional `recordings`
// key (`{ [run_id]: Recording }`), which an importer that does not know it ignores.
import { z } from 'zod';

/** How a call is matched on replay. `hash` is the sha256 (hex, first 16 characters) of the
 * request's canonical JSON (requestHash in src/sdk/call-record.ts): for a model call its
 * messages, tools and parameters; for an HTTP call its method, URL and body. */
export const CallKeySchema = z.object({
  node: z.string(),
  /** The fan-out branch label (`fanOut(..., {label})`, default the index); null outside one. */
  branch: z.string().nullable(),
  /** 0-based index of this call among the calls of its kind in (node, branch) in this run. */
  index: z.number().int().nonnegative(),
  hash: z.string(),
});
export type CallKey = z.infer<typeof CallKeySchema>;

/** A body moved to the Playground blob store (content-addressed, sha256 of its bytes):
 * GET /blobs/{sha256} answers the bytes. */
export const BodyRefSchema = z.object({
  blob: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().nonnegative(),
  /** The first characters, for a list or a preview. */
  preview: z.string(),
});
export type BodyRef = z.infer<typeof BodyRefSchema>;

/** Bodies above this many bytes of JSON are stored as blobs, not inline in the event. */
export const INLINE_BODY_LIMIT = 8 * 1024;

export function isBodyRef(v: unknown): v is BodyRef {
  return typeof v === 'object' && v !== null && typeof (v as BodyRef).blob === 'string' && typeof (v as BodyRef).bytes === 'number';
}

/** Header names whose values are never recorded (any case): they are replaced by
 * "[redacted]". Besides these, any header whose name contains `key`, `token`, `secret`,
 * `password`, `auth`, `cookie` or `session` is redacted, and a URL's user info and query
 * parameters with those names (docs/runtime-traces.md, "Recorded calls"). */
export const REDACTED_HEADERS = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'api-key',
  'x-goog-api-key',
  'openai-organization',
  'openai-project',
  'anthropic-api-key',
  'x-amz-security-token',
] as const;
export const SECRET_NAME = /key|token|secret|password|passwd|auth|cookie|session|credential|signature/i;
export const REDACTED = '[redacted]';

export const RecordedMessageSchema = z.object({
  role: z.string(),
  content: z.unknown(),
  tool_calls: z.unknown().optional(),
  tool_call_id: z.string().optional(),
  name: z.string().optional(),
});
export type RecordedMessage = z.infer<typeof RecordedMessageSchema>;

export const UsageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_read_tokens: z.number(),
  cache_creation_tokens: z.number(),
});

/** The extra fields a recorded `model.call` event carries (beside its usual ones:
 * span_id, parent_span_id, node, started_at, duration_ms, status, provider, request_model,
 * response_model, temperature, max_tokens, finish_reasons, usage, error). */
export const ModelCallRecordSchema = z.object({
  kind: z.literal('model'),
  key: CallKeySchema,
  /** The branch span (`<task id>/<index>`) when the call ran in a fan-out branch. */
  branch_span_id: z.string().nullable().optional(),
  /** The call's options as LangChain's client sent them (model, temperature, tools, ...),
   * or a BodyRef when large. */
  params: z.unknown(),
  input_messages: z.union([z.array(RecordedMessageSchema), BodyRefSchema]),
  /** The answer: one AI message, with its tool calls. */
  output_messages: z.union([z.array(RecordedMessageSchema), BodyRefSchema]).optional(),
  /** The provider's HTTP request as sent (redacted headers), when it went through the pool. */
  raw_request: z.object({ method: z.string(), url: z.string(), headers: z.record(z.string(), z.string()), body: z.unknown() }).optional(),
  /** Answered from a recording instead of the network (a replayed run). */
  replayed: z.boolean().optional(),
});
export type ModelCallRecord = z.infer<typeof ModelCallRecordSchema>;

/** One `outbound.call` trace event: an HTTP call the project made through the runtime's pool. */
export const OutboundCallSchema = z.object({
  kind: z.enum(['fetch', 'mcp', 'agent']),
  key: CallKeySchema,
  span_id: z.string(),
  /** The node span (LangGraph task) that made the call; null outside a node. */
  parent_span_id: z.string().nullable(),
  branch_span_id: z.string().nullable().optional(),
  started_at: z.string(),
  duration_ms: z.number(),
  method: z.string(),
  url: z.string(),
  request_headers: z.record(z.string(), z.string()),
  request_body: z.unknown().optional(),
  status: z.number().int().nullable(),
  response_headers: z.record(z.string(), z.string()).optional(),
  response_body: z.unknown().optional(),
  error: z.string().optional(),
  replayed: z.boolean().optional(),
  /** Answered by a tool mock of the session or experiment (src/shared/mocks.ts), and which. */
  mocked: z.boolean().optional(),
  mock_id: z.string().optional(),
});
export type OutboundCall = z.infer<typeof OutboundCallSchema>;

export const OUTBOUND_CALL_EVENT = 'outbound.call';
export const MODEL_CALL_EVENT = 'model.call';

/** What a replay does with a call that has no recorded match: fail naming the call and the
 * difference (`error`, strict), or send it to the network (`live`). */
export const ReplayMismatchSchema = z.enum(['error', 'live']);
export type ReplayMismatch = z.infer<typeof ReplayMismatchSchema>;

/** The `replay` option of a rerun and of an experiment's create. */
export const ReplayOptionSchema = z.object({
  /** The run whose recorded calls answer this one's (for an experiment: each case's own
   * recorded run, when absent; see docs/playground-api.md). */
  from_run_id: z.string().min(1).optional(),
  on_mismatch: ReplayMismatchSchema.default('error'),
});
export type ReplayOption = z.infer<typeof ReplayOptionSchema>;

/** A replayed run's RunDetail `replay` field. */
export const RunReplaySchema = z.object({
  from_run_id: z.string(),
  on_mismatch: ReplayMismatchSchema,
});
export type RunReplay = z.infer<typeof RunReplaySchema>;

/** One recorded answer the runtime is handed for a replay (bodies resolved, no BodyRefs). */
export const ReplayAnswerSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('model'),
    key: CallKeySchema,
    /** The recorded request (messages, tools, model), to name the difference on a mismatch. */
    request: z.unknown().optional(),
    output_messages: z.array(RecordedMessageSchema),
    usage: UsageSchema.nullable(),
    response_model: z.string().nullable().optional(),
    finish_reasons: z.array(z.string()).optional(),
    error: z.string().optional(),
  }),
  z.object({
    kind: z.enum(['fetch', 'mcp', 'agent']),
    key: CallKeySchema,
    /** The recorded request (method, url, body), to name the difference on a mismatch. */
    request: z.unknown().optional(),
    status: z.number().int().nullable(),
    response_headers: z.record(z.string(), z.string()).optional(),
    response_body: z.unknown().optional(),
    error: z.string().optional(),
  }),
]);
export type ReplayAnswer = z.infer<typeof ReplayAnswerSchema>;

/** What the studio sends the runtime with a replayed run: reserved request metadata key
 * REPLAY_METADATA_KEY (params.metadata), honoured only with the studio's control credential
 * and removed before the A2A SDK sees the request (like `svc.debug`). */
export const ReplayPlanSchema = z.object({
  on_mismatch: ReplayMismatchSchema,
  answers: z.array(ReplayAnswerSchema),
});
export type ReplayPlan = z.infer<typeof ReplayPlanSchema>;
export const REPLAY_METADATA_KEY = 'svc.replay';

/** A run's recording as a bundle carries it: the recorded call events in order. */
export const RecordingSchema = z.object({
  version: z.literal(1),
  run_id: z.string(),
  /** The `model.call` and `outbound.call` events as stored (BodyRefs point into the bundle's blobs). */
  calls: z.array(z.record(z.string(), z.unknown())),
});
export type Recording = z.infer<typeof RecordingSchema>;
/** Optional bundle key: `{ [run_id]: Recording }`. */
export const BUNDLE_RECORDINGS_KEY = 'recordings';
