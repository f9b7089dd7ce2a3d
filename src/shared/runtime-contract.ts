// The contract between the studio and the agent runtime it supervises as a child process.
// The studio never imports the runtime's code (project code runs only in the runtime, see
// docs/architecture.md); everything the two processes agree on is here: how the child is
// configured, the line that says it is ready, the line that carries a broken project's
// diagnostics, how the studio authenticates to its control endpoints, what a reload answers,
// and the trace capture the runtime posts back. Types and pure functions only.

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
} as const;

/** The header carrying the control token. */
export function controlHeaders(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A problem in the project, with where it is (the runtime's project loader finds them). */
export interface ProjectDiagnostic {
  file: string;
  line?: number;
  column?: number;
  field?: string;
  message: string;
}

// ---- ready line (stdout) -----------------------------------------------------------------

const READY = / ready at (https?:\/\/\S+\/)$/;

/** The one line the runtime prints on stdout once it serves requests. */
export function formatReadyLine(agentName: string, url: string): string {
  return `Agent runtime for ${agentName} ready at ${url}`;
}

/** The runtime's base URL (with trailing slash) from its ready line, or null for other lines. */
export function parseReadyLine(line: string): string | null {
  return READY.exec(line.trim())?.[1] ?? null;
}

// ---- diagnostics line (stderr, only with AGENT_STUDIO_CHILD=1) ----------------------------

const DIAGNOSTICS_PREFIX = 'agent-studio:diagnostics ';

/** The line a studio child prints when the project it was asked to serve is not valid. */
export function formatDiagnosticsLine(diagnostics: ProjectDiagnostic[]): string {
  return `${DIAGNOSTICS_PREFIX}${JSON.stringify({ diagnostics })}`;
}

export function parseDiagnosticsLine(line: string): ProjectDiagnostic[] | null {
  if (!line.startsWith(DIAGNOSTICS_PREFIX)) return null;
  try {
    const parsed = JSON.parse(line.slice(DIAGNOSTICS_PREFIX.length)) as { diagnostics?: unknown };
    return Array.isArray(parsed.diagnostics) ? parsed.diagnostics.filter(isDiagnostic) : null;
  } catch {
    return null;
  }
}

function isDiagnostic(d: unknown): d is ProjectDiagnostic {
  return typeof d === 'object' && d !== null && typeof (d as ProjectDiagnostic).file === 'string' && typeof (d as ProjectDiagnostic).message === 'string';
}

// ---- control endpoints (management envelope, spec 2.1) ------------------------------------

/** Relative to the runtime's base URL. */
export const RELOAD_PATH = 'api/v1/registry/reload';
export const METADATA_PATH = 'api/v1/registry/metadata';
/** The runtime's public agent card (A2A 0.3.0); the studio reads its skills' examples. */
export const AGENT_CARD_PATH = '.well-known/agent-card.json';

/** `data` of a successful reload. */
export interface ReloadOutcome {
  reloaded: boolean;
  generation: number;
  previous_generation: number;
  changed: { kind: string; name: string; file: string; change: 'added' | 'modified' | 'removed' }[];
}

/** `error` of a reload the project's files failed (409): the old generation keeps serving. */
export interface ReloadFailure {
  code: 'RELOAD_FAILED';
  message: string;
  generation: number;
  diagnostics: ProjectDiagnostic[];
}

/** An input contract the loaded project declares, with its JSON Schema resolved. */
export interface InputContractInfo {
  schema: string;
  name: string;
  description?: string;
  json_schema: Record<string, unknown> | null;
}

/** `data` of GET registry/metadata. */
export interface RegistryMetadata {
  agent: string;
  generation: number;
  loaded_at: string;
  exit_node: string;
  components: { kind: string; name: string; file: string; hash: string; version: number }[];
  input_contracts: InputContractInfo[];
}

// ---- trace capture (runtime -> studio) -----------------------------------------------------

/** Reserved metadata key of a Playground invocation (D-11): `{capture_token}`; never stored. */
export const RESERVED_CAPTURE_KEY = 'svc.playground';

/** The studio's capture endpoint path. */
export const CAPTURE_PATH = '/internal/capture';

/** One trace event as the runtime delivers it: a name, a timestamp, and its fields. */
export interface CapturedTraceEvent {
  name: string;
  ts?: string;
  [field: string]: unknown;
}

/** Body of POST CAPTURE_PATH. */
export interface CaptureBody {
  capture_token: string;
  events: CapturedTraceEvent[];
}
