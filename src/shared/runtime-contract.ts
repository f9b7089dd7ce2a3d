// The contract between the studio and the agent runtime it supervises as a child process.
// The studio never imports the runtime's code (project code runs only in the runtime, see
// docs/architecture.md); everything the two processes agree on is here: how the child is
// configured, the line that says it is ready, the line that carries a broken project's
// diagnostics, how the studio authenticates to its control endpoints, the paths it calls,
// what a reload and the registry metadata answer, and the trace capture the runtime posts
// back. Every body is a zod schema and its type is `z.infer` of it; no other module
// declares these shapes. Schemas, constants and pure functions only.
import { z } from 'zod';

/** Environment the studio gives its runtime child. */
export const RUNTIME_ENV = {
  /** Where the runtime posts captured trace events (the studio's capture endpoint). */
  captureUrl: 'AGENT_STUDIO_CAPTURE_URL',
  /** Registry endpoints exist only when 'true' (spec 4.2, 5.2). */
  controlEnabled: 'INTERNAL_RUNTIME_CONTROL_ENABLED',
  /** When set, the registry endpoints require `Authorization: Bearer <token>`. The studio
   * makes a new random token for every start of its child. */
  controlToken: 'RUNTIME_CONTROL_TOKEN',
  /** '1' under the studio: the runtime also prints machine-readable diagnostics lines. */
  studioChild: 'AGENT_STUDIO_CHILD',
  /** The studio's process id: its runtime child stops when that process is gone, also when
   * the studio died before the child could watch its parent. */
  studioPid: 'AGENT_STUDIO_PID',
  /** AGENT_ID used when neither the environment nor the project's .env sets one. */
  defaultAgentId: 'AGENT_STUDIO_DEFAULT_AGENT_ID',
  /** How often a turn checkpoints (src/shared/thread-state.ts); the studio asks for every step. */
  checkpointDurability: 'CHECKPOINT_DURABILITY',
} as const;

/** The header carrying the control token. */
export function controlHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

// ---- paths ---------------------------------------------------------------------------------

/** Where the runtime mounts its management API (spec 4.2). */
export const MANAGEMENT_BASE = '/api/v1';
/** The registry endpoints, under MANAGEMENT_BASE (spec 4.2, 5.2). */
export const REGISTRY_ROUTES = { metadata: '/registry/metadata', reload: '/registry/reload' } as const;
/** The public agent card (A2A 0.3.0), from the runtime's root; the studio reads its skills' examples. */
export const AGENT_CARD_ROUTE = '/.well-known/agent-card.json';
/** The card's path before A2A 0.3 (docs/decisions.md D-77): the same card, for older clients. */
export const LEGACY_AGENT_CARD_ROUTE = '/.well-known/agent.json';
/** The A2A 1.0 HTTP+JSON binding's base path under the runtime's url (D-86). */
export const A2A_REST_BASE = '/v1';
/** 200 while the runtime serves; the body is not part of the contract. */
export const HEALTH_ROUTE = '/healthz';
/** Liveness (docs/deployment.md, "Shutdown and health"): 200 while the process answers; never asks the store. */
export const LIVENESS_ROUTE = '/livez';
/** Readiness: 200 when the store answers, the project is loaded and the runtime is not draining, else 503 naming the failing check. */
export const READINESS_ROUTE = '/readyz';
/** The loaded project's graph, passed to the renderer as the runtime answers it. */
export const GRAPH_ROUTE = '/graph';
/** The runtime's status (spec 4.2), under MANAGEMENT_BASE. */
export const STATUS_ROUTE = '/status';

/** The runtime's paths the studio calls, relative to the runtime's base URL (which ends in
 * a slash). The registry paths answer in the management envelope (spec 2.1). */
export const RUNTIME_PATHS = {
  reload: `${MANAGEMENT_BASE.slice(1)}${REGISTRY_ROUTES.reload}`,
  metadata: `${MANAGEMENT_BASE.slice(1)}${REGISTRY_ROUTES.metadata}`,
  agentCard: AGENT_CARD_ROUTE.slice(1),
  health: HEALTH_ROUTE.slice(1),
  liveness: LIVENESS_ROUTE.slice(1),
  graph: GRAPH_ROUTE.slice(1),
  status: `${MANAGEMENT_BASE.slice(1)}${STATUS_ROUTE}`,
} as const;

/** The playground's model call, under the debugger's base (src/shared/call-playground.ts, D-100). */
export { MODEL_CALL_ROUTE, ModelCallReplySchema, ModelCallRequestSchema, type ModelCallRequest, type ModelCallResult } from './call-playground.ts';

// ---- schemas ---------------------------------------------------------------------------------

/** z.object (unknown keys dropped) or z.strictObject (refused): one declaration serves both
 * modes, and the inferred types are the same. */
type ObjectSchema = typeof z.object;

function diagnosticSchemas(object: ObjectSchema) {
  /** A problem in the project, with where it is (the runtime's project loader finds them). */
  const ProjectDiagnostic = object({
    /** Project-relative file. */
    file: z.string(),
    line: z.number().int().optional(),
    column: z.number().int().optional(),
    /** Path of the manifest field (`skills[0].description`), when the problem is a field. */
    field: z.string().optional(),
    message: z.string(),
  });
  /** JSON of the diagnostics line (below). */
  const DiagnosticsLine = object({ diagnostics: z.array(ProjectDiagnostic) });
  return { ProjectDiagnostic, DiagnosticsLine };
}

function registrySchemas(object: ObjectSchema, ProjectDiagnostic: ReturnType<typeof diagnosticSchemas>['ProjectDiagnostic']) {
  const ComponentChange = object({
    kind: z.string(),
    name: z.string(),
    file: z.string(),
    change: z.enum(['added', 'modified', 'removed']),
    previous_hash: z.string().nullable(),
    hash: z.string().nullable(),
  });
  /** `data` of a successful reload. */
  const ReloadOutcome = object({
    reloaded: z.boolean(),
    generation: z.number().int(),
    previous_generation: z.number().int(),
    changed: z.array(ComponentChange),
  });
  /** `error` of a reload the project's files failed (409): the old generation keeps serving. */
  const ReloadFailure = object({
    code: z.literal('RELOAD_FAILED'),
    message: z.string(),
    generation: z.number().int(),
    diagnostics: z.array(ProjectDiagnostic),
  });
  /** An input contract the loaded project declares, with its JSON Schema resolved. */
  const InputContractInfo = object({
    schema: z.string(),
    name: z.string(),
    description: z.string().optional(),
    json_schema: z.record(z.string(), z.unknown()).nullable(),
  });
  /** A run option the loaded project declares (manifest `runOptions`): a request-metadata
   * field the composer shows, filled with `default`, and sends with each run. */
  const RunOptionInfo = object({
    name: z.string(),
    type: z.enum(['integer', 'number', 'string', 'boolean']),
    default: z.union([z.number(), z.string(), z.boolean()]).optional(),
    description: z.string().optional(),
    min: z.number().optional(),
    max: z.number().optional(),
  });
  /** `data` of GET registry/metadata. */
  const RegistryMetadata = object({
    agent: z.string(),
    generation: z.number().int(),
    loaded_at: z.string(),
    exit_node: z.string(),
    components: z.array(object({ kind: z.string(), name: z.string(), file: z.string(), hash: z.string(), version: z.number().int() })),
    input_contracts: z.array(InputContractInfo),
    // Absent from a runtime older than run options: none declared.
    run_options: z.array(RunOptionInfo).default([]),
  });
  return { ComponentChange, ReloadOutcome, ReloadFailure, InputContractInfo, RunOptionInfo, RegistryMetadata };
}

function captureSchemas(object: ObjectSchema) {
  /** One trace event as the runtime delivers it: a name, a timestamp, and its fields (open:
   * every event kind carries its own, spec 6.3). */
  const CapturedTraceEvent = z.looseObject({ name: z.string().min(1), ts: z.string().optional() });
  /** Body of POST CAPTURE_PATH. */
  const CaptureBody = object({
    capture_token: z.string().min(1),
    events: z.array(CapturedTraceEvent).max(10_000),
  });
  return { CapturedTraceEvent, CaptureBody };
}

/** Builds every schema of the contract. Replies are read leniently (unknown keys dropped:
 * clients ignore keys they do not know, spec 2.6, 9.6); requests and the drift test read
 * strictly, so a key one side adds or renames without the other fails there. */
function contractSchemas(strict: boolean) {
  const object = (strict ? z.strictObject : z.object) as ObjectSchema;
  const diagnostics = diagnosticSchemas(object);
  const registry = registrySchemas(object, diagnostics.ProjectDiagnostic);
  /** The management envelope (spec 2.1) of a success, and of a failure. */
  const ok = <T extends z.ZodType>(data: T) => object({ success: z.literal(true), data, error: z.null() });
  const failed = <T extends z.ZodType>(error: T) => object({ success: z.literal(false), data: z.null(), error });
  /** `error` of any other management reply (spec 2.1: code, message, possibly more fields). */
  const ManagementErrorBody = z.looseObject({ code: z.string(), message: z.string() });
  return {
    ...diagnostics,
    ...registry,
    ...captureSchemas(object),
    ManagementErrorBody,
    ReloadReply: ok(registry.ReloadOutcome),
    ReloadFailedReply: failed(registry.ReloadFailure),
    MetadataReply: ok(registry.RegistryMetadata),
    /** GET /api/v1/status as the studio reads it: only where the trace spans go (each sink's
     * state, docs/runtime-traces.md); the rest of the document is left to other readers. */
    StatusReply: ok(z.looseObject({ trace_sinks: z.record(z.string(), z.record(z.string(), z.unknown())) })),
    ErrorReply: failed(ManagementErrorBody),
  };
}

/** The contract's schemas as a client reads replies: unknown keys are dropped. */
export const RuntimeSchemas = contractSchemas(false);
/** The same schemas refusing unknown keys: for requests, and for the drift test. */
export const StrictRuntimeSchemas = contractSchemas(true);

export type ProjectDiagnostic = z.infer<typeof RuntimeSchemas.ProjectDiagnostic>;
export type ComponentChange = z.infer<typeof RuntimeSchemas.ComponentChange>;
export type ReloadOutcome = z.infer<typeof RuntimeSchemas.ReloadOutcome>;
export type ReloadFailure = z.infer<typeof RuntimeSchemas.ReloadFailure>;
export type InputContractInfo = z.infer<typeof RuntimeSchemas.InputContractInfo>;
export type RegistryMetadata = z.infer<typeof RuntimeSchemas.RegistryMetadata>;
export type RunOptionInfo = z.infer<typeof RuntimeSchemas.RunOptionInfo>;
export type CapturedTraceEvent = z.infer<typeof RuntimeSchemas.CapturedTraceEvent>;
export type CaptureBody = z.infer<typeof RuntimeSchemas.CaptureBody>;

// ---- ready line (stdout) -----------------------------------------------------------------

/** The runtime's base URL as its ready line names it: http(s), ending in a slash. */
export const ReadyUrlSchema = z.url({ protocol: /^https?$/ }).regex(/\/$/);

const READY = / ready at (https?:\/\/\S+\/)$/;

/** The one line the runtime prints on stdout once it serves requests. */
export function formatReadyLine(agentName: string, url: string): string {
  return `Agent runtime for ${agentName} ready at ${url}`;
}

/** The runtime's base URL (with trailing slash) from its ready line, or null for other lines. */
export function parseReadyLine(line: string): string | null {
  const url = READY.exec(line.trim())?.[1];
  return url && ReadyUrlSchema.safeParse(url).success ? url : null;
}

// ---- diagnostics line (stderr, only with AGENT_STUDIO_CHILD=1) ----------------------------

const DIAGNOSTICS_PREFIX = 'agent-studio:diagnostics ';

/** The line a studio child prints when the project it was asked to serve is not valid. */
export function formatDiagnosticsLine(diagnostics: ProjectDiagnostic[]): string {
  const body: z.infer<typeof RuntimeSchemas.DiagnosticsLine> = { diagnostics };
  return `${DIAGNOSTICS_PREFIX}${JSON.stringify(body)}`;
}

/** The diagnostics of a diagnostics line (entries that are not diagnostics are skipped), or
 * null for other lines. */
export function parseDiagnosticsLine(line: string): ProjectDiagnostic[] | null {
  if (!line.startsWith(DIAGNOSTICS_PREFIX)) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line.slice(DIAGNOSTICS_PREFIX.length));
  } catch {
    return null;
  }
  const entries = z.object({ diagnostics: z.array(z.unknown()) }).safeParse(parsed);
  if (!entries.success) return null;
  return entries.data.diagnostics.flatMap((d) => {
    const one = RuntimeSchemas.ProjectDiagnostic.safeParse(d);
    return one.success ? [one.data] : [];
  });
}

// ---- trace capture (runtime -> studio) -----------------------------------------------------

/** Reserved metadata key of a Playground invocation (docs/decisions.md D-11); never stored. */
export const RESERVED_CAPTURE_KEY = 'svc.playground';

/** How long the runtime holds a run's trace events before posting them, unless the studio
 * asks for longer (D-82): the studio shows a run's spans while it runs. */
export const CAPTURE_BATCH_MS = 50;
/** The longest hold a studio may ask for (`batch_ms`, D-111). */
export const MAX_CAPTURE_BATCH_MS = 1000;

/** The value under RESERVED_CAPTURE_KEY: `{capture_token, batch_ms?}` (the token alone is read
 * too). `batch_ms`: how long the runtime may hold the run's trace events before it posts them,
 * for a run no author is watching as it starts (an experiment's case, D-111); a value outside
 * CAPTURE_BATCH_MS..MAX_CAPTURE_BATCH_MS is brought within it, anything but a number is
 * ignored. Its final events are posted at the turn's end whatever the hold. */
export const CaptureKeySchema = z.union([
  z.object({ capture_token: z.string(), batch_ms: z.unknown().optional() }).transform((v) => ({ token: v.capture_token, batchMs: batchMsOf(v.batch_ms) })),
  z.string().transform((token) => ({ token, batchMs: CAPTURE_BATCH_MS })),
]);
export type CaptureKey = z.input<typeof CaptureKeySchema>;

function batchMsOf(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return CAPTURE_BATCH_MS;
  return Math.min(MAX_CAPTURE_BATCH_MS, Math.max(CAPTURE_BATCH_MS, Math.round(value)));
}

/** What a request's reserved metadata value asks for: its capture token and how long its
 * events may wait; null when it names no token. */
export function captureOf(value: unknown): { token: string; batchMs: number } | null {
  // Most requests carry no capture key: no parse (a failed one builds a ZodError, D-114).
  if (value === undefined || value === null) return null;
  const parsed = CaptureKeySchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** The capture token of a request's reserved metadata value, or null when it names none. */
export function captureTokenOf(value: unknown): string | null {
  return captureOf(value)?.token ?? null;
}

/** The studio's capture endpoint path. */
export const CAPTURE_PATH = '/internal/capture';
