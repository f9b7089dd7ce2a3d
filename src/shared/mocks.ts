// Tool mocks (docs/playground-api.md, "Tool mocks"; D-102, D-103): for a session or an
// experiment, a `ctx.fetch` endpoint (method and URL pattern), an MCP tool (by name) or a
// `callAgent` target (URL pattern) is answered by a fixed response or an error instead of the
// network. The studio sends a run's mocks to the runtime under the reserved request metadata
// key MOCKS_METADATA_KEY (honoured only with the studio's control credential, like a replay
// plan); the runtime answers a matching call through the replay answering path and records it
// with `mocked: true` and the mock's id.
import { z } from 'zod';

/** A URL pattern: the whole URL, `*` matching any run of characters (none included). It is
 * matched against the URL as recorded, secrets redacted (docs/runtime-traces.md). */
const UrlPattern = z
  .string()
  .trim()
  .min(1, 'url must not be empty')
  .max(2000)
  .refine((s) => s === '*' || /^(\*|https?:\/\/)/i.test(s), 'url must start with http://, https:// or *');

export const MockTargetSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('fetch'),
    /** The HTTP method, or `*` for any (default). */
    method: z
      .string()
      .trim()
      .regex(/^(\*|[A-Za-z]+)$/, 'method must be an HTTP method such as GET, or *')
      .transform((m) => m.toUpperCase())
      .default('*'),
    url: UrlPattern,
  }),
  z.strictObject({
    kind: z.literal('mcp'),
    /** The MCP server's name in agent.json; any server when absent. */
    server: z.string().trim().min(1).max(200).optional(),
    tool: z.string().trim().min(1, 'tool must name an MCP tool').max(200),
  }),
  z.strictObject({
    kind: z.literal('agent'),
    /** A pattern of the URLs `callAgent` fetches: its card URL and the agent's endpoint. */
    url: UrlPattern,
  }),
]);
export type MockTarget = z.infer<typeof MockTargetSchema>;

/** The failures a mock can stand for, and the standard code (spec 7.2) the runtime reports
 * when the project lets it end the run: `timeout` UPSTREAM_TIMEOUT (an error named
 * TimeoutError, as an expired AbortSignal.timeout throws); `connection_refused`
 * UPSTREAM_UNAVAILABLE (a fetch failure with ECONNREFUSED); `tool_error` (an MCP tool or
 * agent that answered an error: the error's message) INTERNAL_ERROR unless the project maps it. */
export const MOCK_ERROR_KINDS = ['timeout', 'connection_refused', 'tool_error'] as const;
export const MockErrorKindSchema = z.enum(MOCK_ERROR_KINDS);
export type MockErrorKind = z.infer<typeof MockErrorKindSchema>;

/** Bodies of a fixed response are at most this many bytes of JSON. */
export const MOCK_BODY_LIMIT = 1024 * 1024;

export const MockAnswerSchema = z.union([
  z.strictObject({
    response: z.strictObject({
      status: z.number().int().min(100).max(599).default(200),
      headers: z.record(z.string().min(1).max(200), z.string().max(8000)).default({}),
      /** JSON (sent as JSON) or a string (sent as it is). For an MCP tool: what the tool answers. */
      body: z.unknown().optional(),
    }),
  }),
  z.strictObject({
    error: z.strictObject({
      kind: MockErrorKindSchema,
      message: z.string().max(2000).optional(),
    }),
  }),
]);
export type MockAnswer = z.infer<typeof MockAnswerSchema>;

/** A mock as a client sends it (POST/PUT /sessions/{id}/mocks, an experiment's `mocks`). */
export const MockInputSchema = z
  .strictObject({
    target: MockTargetSchema,
    /** Only calls made in this node (a subgraph's node as `outer/inner`); any node when absent. */
    node: z.string().trim().min(1).max(200).optional(),
    answer: MockAnswerSchema,
    /** Free text shown with the mock. */
    label: z.string().max(200).optional(),
  })
  .superRefine((m, ctx) => {
    if ('response' in m.answer && JSON.stringify(m.answer.response.body ?? null).length > MOCK_BODY_LIMIT)
      ctx.addIssue({ code: 'custom', path: ['answer', 'response', 'body'], message: `the body is larger than ${MOCK_BODY_LIMIT} bytes of JSON` });
  });
export type MockInput = z.input<typeof MockInputSchema>;
export type ParsedMockInput = z.output<typeof MockInputSchema>;

/** A session's (or experiment's) mocks hold at most this many. */
export const MAX_MOCKS = 100;

/** PUT /sessions/{id}/mocks replaces them all; an experiment's create option takes the same list. */
export const MockListSchema = z.array(MockInputSchema).max(MAX_MOCKS, `at most ${MAX_MOCKS} mocks`);
export const SetMocksBodySchema = z.strictObject({ mocks: MockListSchema });

/** A stored mock: the input with its id (`mock_` + 12 hex) and when it was set. */
export const MockSchema = z.object({
  mock_id: z.string(),
  target: MockTargetSchema,
  node: z.string().optional(),
  answer: MockAnswerSchema,
  label: z.string().optional(),
  created_at: z.string(),
});
export type Mock = z.infer<typeof MockSchema>;

export const MockListReplySchema = z.object({ items: z.array(MockSchema) });

/** What the runtime is handed with a run: the mocks that apply, the first match wins. */
export const MockPlanSchema = z.object({ mocks: z.array(MockSchema.omit({ created_at: true })) });
export type MockPlan = z.infer<typeof MockPlanSchema>;
export const MOCKS_METADATA_KEY = 'svc.mocks';
