// Wire types of the Playground API (/api/playground/v1), shared by the studio's main
// process and the renderer. spec 2.6, 3, 4.3, 6.2, 7.3; the shapes the spec leaves open
// are decided in docs/playground-api.md.

export const PLAYGROUND_PREFIX = '/api/playground/v1';

/** spec 3: the fixed set of eight run states. */
export const RUN_STATES = [
  'queued',
  'preparing',
  'running',
  'input_required',
  'completed',
  'failed',
  'cancelled',
  'interrupted',
] as const;
export type RunStatus = (typeof RUN_STATES)[number];

/** States in which a run still holds the project's single active-run slot (spec 8). */
export const ACTIVE_STATES: readonly RunStatus[] = ['queued', 'preparing', 'running'];
export const TERMINAL_STATES: readonly RunStatus[] = [
  'input_required',
  'completed',
  'failed',
  'cancelled',
  'interrupted',
];

export function isActive(status: RunStatus): boolean {
  return ACTIVE_STATES.includes(status);
}

/** Reasons seen in spec 3. Clients must tolerate new values. */
export type RunReason =
  | 'runtime_unavailable'
  | 'runtime_restarted'
  | 'project_validation'
  | 'user_cancelled'
  | 'studio_shutdown'
  | (string & {});

/** Input part as sent by a client when creating a run. */
export type InputPart =
  | { kind: 'text'; text: string }
  | { kind: 'data'; data: Record<string, unknown> }
  | { kind: 'file'; name?: string; mime_type?: string; bytes_base64: string }
  | { kind: 'file'; name?: string; mime_type?: string; uri: string };

/** Tagged part as stored on a run (spec 2.6). */
export type TaggedPart =
  /** `partial`: what a run streamed before it was cancelled or interrupted (output only). */
  | { kind: 'text'; text: string; partial?: boolean }
  | { kind: 'data'; data: Record<string, unknown> }
  | LocalFilePart
  | ExternalFilePart
  | { kind: 'status'; status: string; reason?: string }
  | { kind: 'error'; message: string; code?: string };

export interface LocalFilePart {
  kind: 'file';
  source: 'inline';
  sha256: string;
  size: number;
  name?: string;
  mime_type?: string;
}

export interface ExternalFilePart {
  kind: 'file';
  source: 'uri';
  uri: string;
  /** 'external': the studio never downloads it. */
  availability: 'external';
  /** 'by_reference': a rerun sends the same uri again. */
  replay: 'by_reference';
  name?: string;
  mime_type?: string;
}

/** spec 2.6: score entries. Optional keys are present only when the evaluator reported them. */
export interface ScoreEntry {
  evaluator: string;
  score: number | null;
  reason?: string;
  passStatus?: string;
  scope?: string;
  node?: string;
  duration_ms?: number;
}

export interface Session {
  session_id: string;
  title: string;
  created_at: string;
  updated_at: string;
  run_count: number;
  last_run_status: RunStatus | null;
}

export interface CreateSessionBody {
  title?: string;
}

export interface RunSummary {
  run_id: string;
  session_id: string;
  parent_run_id: string | null;
  /** 'send' for a new message, 'resume' for a child of an input_required run, 'rerun' for a copy. */
  origin: 'send' | 'resume' | 'rerun';
  status: RunStatus;
  reason: RunReason | null;
  context_id: string | null;
  task_id: string | null;
  created_at: string;
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  /** The first text of the input, on one line, at most 120 characters. */
  input_preview: string | null;
  /** For an input_required run: the reply run that answered it, or null while it waits. */
  answered_by?: string | null;
}

export interface RunDetail extends RunSummary {
  input_parts: TaggedPart[];
  output_parts: TaggedPart[];
  scores: ScoreEntry[];
  metadata: Record<string, unknown>;
  changed_files: string[];
  revision: string | null;
  /** Highest event seq stored for the run. */
  last_seq: number;
  /** The code the run ran with (docs/studio-api.md): a hash over the project's files, and
   * each file's sha256; null for a run that never reached the runtime. */
  code_fingerprint: string | null;
  code_files: Record<string, string> | null;
  /** A run that came in a bundle: its id there, the project it was exported from, when. */
  imported: { from_run_id: string; project: string | null; at: string } | null;
}

/** One turn of GET /sessions/{id}/transcript: a run's input and what the agent answered. */
export interface TranscriptTurn {
  run_id: string;
  parent_run_id: string | null;
  origin: RunSummary['origin'];
  status: RunStatus;
  reason: RunReason | null;
  created_at: string;
  duration_ms: number | null;
  input_parts: TaggedPart[];
  output_parts: TaggedPart[];
  answered_by?: string | null;
}

export interface CreateRunBody {
  parts: InputPart[];
  metadata?: Record<string, unknown>;
  changed_files?: string[];
  revision?: string;
}

/** 202 answer of create, resume and rerun (spec 4.3 rule 1). */
export interface RunAccepted {
  run_id: string;
  status: RunStatus;
  session_id: string;
  parent_run_id: string | null;
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/** Body of every Playground error: `{detail: {error, message, ...}}` (spec 7.3). */
export interface PlaygroundErrorBody {
  detail: { error: string; message?: string; [key: string]: unknown };
}

export const EVENT_KINDS = ['run.status', 'run.phase', 'output.delta', 'run.output', 'trace', 'diagnostic'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export type PhaseName = 'queue' | 'prepare' | 'invoke' | 'complete';
export type PhaseState = 'started' | 'completed' | 'failed' | 'skipped';

interface EventBase {
  seq: number;
  run_id: string;
  ts: string;
}

export type RunEvent =
  | (EventBase & { kind: 'run.status'; status: RunStatus; reason?: RunReason })
  | (EventBase & { kind: 'run.phase'; phase: PhaseName; state: PhaseState; [detail: string]: unknown })
  | (EventBase & { kind: 'output.delta'; text: string })
  | (EventBase & { kind: 'run.output'; parts: TaggedPart[] })
  | (EventBase & { kind: 'trace'; name: string; data: Record<string, unknown> })
  | (EventBase & {
      kind: 'diagnostic';
      severity: 'error' | 'warning';
      message: string;
      file?: string;
      line?: number;
      column?: number;
    });
