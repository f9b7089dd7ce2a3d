// Boundary: studio -> renderer (and any client of the Playground API). The reply bodies of
// /api/playground/v1 as zod schemas, each type `z.infer` of its schema: sessions, runs, the
// transcript, the 202 answer, pages, the error body and the run events. spec 2.6, 3, 4.3,
// 6.2, 7.3; the shapes the spec leaves open are decided in docs/playground-api.md. Request
// bodies and query parameters are in playground-requests.ts.
// Object schemas strip unknown keys: a client parsing a reply ignores keys it does not know
// (spec 2.6, 9.6). test/integration/wire-drift.test.ts holds the studio's real replies to them
// strictly.
import { RunReplaySchema } from './recordings.ts';
import { z } from 'zod';

export type { CreateRunBody, CreateSessionBody, InputPart } from './playground-requests.ts';

export const PLAYGROUND_PREFIX = '/api/playground/v1';

/** spec 3: the fixed set of eight run states. */
export const RUN_STATES = ['queued', 'preparing', 'running', 'input_required', 'completed', 'failed', 'cancelled', 'interrupted'] as const;
export const RunStatusSchema = z.enum(RUN_STATES);
export type RunStatus = z.infer<typeof RunStatusSchema>;

/** States in which a run still holds the project's single active-run slot (spec 8). */
export const ACTIVE_STATES: readonly RunStatus[] = ['queued', 'preparing', 'running'];
export const TERMINAL_STATES: readonly RunStatus[] = ['input_required', 'completed', 'failed', 'cancelled', 'interrupted'];

export function isActive(status: RunStatus): boolean {
  return ACTIVE_STATES.includes(status);
}

/** spec 3: why a run is in its state. Seen today: runtime_unavailable, runtime_restarted,
 * project_validation, user_cancelled, studio_shutdown; clients must tolerate new values. */
export const RunReasonSchema = z.string();
export type RunReason = z.infer<typeof RunReasonSchema>;

const jsonObject = z.record(z.string(), z.unknown());

export const LocalFilePartSchema = z.object({
  kind: z.literal('file'),
  source: z.literal('inline'),
  sha256: z.string(),
  size: z.number().int(),
  name: z.string().optional(),
  mime_type: z.string().optional(),
});
export type LocalFilePart = z.infer<typeof LocalFilePartSchema>;

export const ExternalFilePartSchema = z.object({
  kind: z.literal('file'),
  source: z.literal('uri'),
  uri: z.string(),
  /** 'external': the studio never downloads it. */
  availability: z.literal('external'),
  /** 'by_reference': a rerun sends the same uri again. */
  replay: z.literal('by_reference'),
  name: z.string().optional(),
  mime_type: z.string().optional(),
});
export type ExternalFilePart = z.infer<typeof ExternalFilePartSchema>;

/** Tagged part as stored on a run (spec 2.6). */
export const TaggedPartSchema = z.union([
  /** `partial`: what a run streamed before it was cancelled or interrupted (output only). */
  z.object({ kind: z.literal('text'), text: z.string(), partial: z.boolean().optional() }),
  z.object({ kind: z.literal('data'), data: jsonObject }),
  LocalFilePartSchema,
  ExternalFilePartSchema,
  z.object({ kind: z.literal('status'), status: z.string(), reason: z.string().optional() }),
  z.object({ kind: z.literal('error'), message: z.string(), code: z.string().optional() }),
]);
export type TaggedPart = z.infer<typeof TaggedPartSchema>;

/** spec 2.6: score entries. Optional keys are present only when the evaluator reported them;
 * the list of keys only grows, and clients ignore keys they do not know. */
export const ScoreEntrySchema = z.object({
  evaluator: z.string(),
  score: z.number().nullable(),
  reason: z.string().optional(),
  passStatus: z.string().optional(),
  scope: z.string().optional(),
  node: z.string().optional(),
  duration_ms: z.number().optional(),
});
export type ScoreEntry = z.infer<typeof ScoreEntrySchema>;

export const SessionSchema = z.object({
  session_id: z.string(),
  title: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  run_count: z.number().int(),
  last_run_status: RunStatusSchema.nullable(),
  /** A session that came in a bundle (its runs are imported, docs/bundles.md): when, and the
   * project it was exported from; both null for a session made here. */
  imported_at: z.string().nullable(),
  imported_project: z.string().nullable(),
  /** A fork's session (docs/playground-api.md, "Fork and re-run from a checkpoint"): the run it
   * was forked from; null for any other session (an extension). */
  forked_from_run_id: z.string().nullable().optional(),
  /** A conversation branch (docs/playground-api.md, "Conversation branches"): the session and
   * the run whose user turn it edited, and the root session of its group; null for any other
   * session. `branch_count`: the branches grouped under this session when it is a root. */
  branch_of: z.object({ session_id: z.string(), run_id: z.string(), root_session_id: z.string() }).nullable().optional(),
  branch_count: z.number().int().optional(),
  /** The experiment whose case this hidden session runs (docs/playground-api.md, "Datasets and
   * experiments"); null for any other session (an extension). GET /sessions leaves them out. */
  experiment_id: z.string().nullable().optional(),
});
export type Session = z.infer<typeof SessionSchema>;

/** 'send' for a new message, 'resume' for a child of an input_required run, 'rerun' for a copy. */
export const RunOriginSchema = z.enum(['send', 'resume', 'rerun']);
export type RunOrigin = z.infer<typeof RunOriginSchema>;

/** Where a fork's run came from (docs/playground-api.md, "Fork and re-run from a checkpoint"):
 * the run and checkpoint it continues from, the node that wrote that checkpoint (the edit is
 * applied as that node; null for a turn's input checkpoint), and the edit
 * as a JSON patch (RFC 6902) on the checkpoint's channels, empty for a re-run. */
export const RunForkSchema = z.object({
  run_id: z.string(),
  session_id: z.string(),
  checkpoint_id: z.string(),
  checkpoint_ns: z.string(),
  node: z.string().nullable(),
  patch: z.array(z.object({ op: z.literal('replace'), path: z.string(), value: z.unknown() })),
});
export type RunFork = z.infer<typeof RunForkSchema>;

/** The edit a Continue or Step of a paused run applied to the thread before it ran on
 * (docs/playground-api.md, "Continue with an edited state"): the paused checkpoint, the node the
 * edit was applied as (null for a turn's input checkpoint), the checkpoint the edit wrote, and
 * the edit as a JSON patch (RFC 6902, one `replace` per edited channel). */
export const RunEditSchema = z.object({
  checkpoint_id: z.string(),
  node: z.string().nullable(),
  edited_checkpoint_id: z.string(),
  patch: RunForkSchema.shape.patch,
});
export type RunEdit = z.infer<typeof RunEditSchema>;

export const RunSummarySchema = z.object({
  run_id: z.string(),
  session_id: z.string(),
  parent_run_id: z.string().nullable(),
  origin: RunOriginSchema,
  status: RunStatusSchema,
  reason: RunReasonSchema.nullable(),
  context_id: z.string().nullable(),
  task_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  ended_at: z.string().nullable(),
  duration_ms: z.number().nullable(),
  /** The first text of the input, on one line, at most 120 characters. */
  input_preview: z.string().nullable(),
  /** For an input_required run: the reply run that answered it, or null while it waits. */
  answered_by: z.string().nullable().optional(),
});
export type RunSummary = z.infer<typeof RunSummarySchema>;

export const RunDetailSchema = RunSummarySchema.extend({
  input_parts: z.array(TaggedPartSchema),
  output_parts: z.array(TaggedPartSchema),
  scores: z.array(ScoreEntrySchema),
  metadata: jsonObject,
  changed_files: z.array(z.string()),
  revision: z.string().nullable(),
  /** Highest event seq stored for the run. */
  last_seq: z.number().int(),
  /** The code the run ran with (docs/studio-api.md): a hash over the project's files, and
   * each file's sha256; null for a run that never reached the runtime. */
  code_fingerprint: z.string().nullable(),
  code_files: z.record(z.string(), z.string()).nullable(),
  /** A run that came in a bundle: its id there, the project it was exported from, when. */
  imported: z.object({ from_run_id: z.string(), project: z.string().nullable(), at: z.string() }).nullable(),
  /** A fork's run: where it came from (an extension; absent or null for any other run). */
  fork: RunForkSchema.nullable().optional(),
  /** A Continue or Step that edited the paused state first (an extension; absent or null otherwise). */
  edit: RunEditSchema.nullable().optional(),
  /** A replayed run: the run whose recorded calls answered it and what a call without a match
   * did (docs/playground-api.md, "Replay"); null for any other run. */
  replay: RunReplaySchema.nullable().optional(),
});
export type RunDetail = z.infer<typeof RunDetailSchema>;

/** One turn of GET /sessions/{id}/transcript: a run's input and what the agent answered. */
export const TranscriptTurnSchema = z.object({
  run_id: z.string(),
  parent_run_id: z.string().nullable(),
  origin: RunOriginSchema,
  status: RunStatusSchema,
  reason: RunReasonSchema.nullable(),
  created_at: z.string(),
  duration_ms: z.number().nullable(),
  input_parts: z.array(TaggedPartSchema),
  output_parts: z.array(TaggedPartSchema),
  answered_by: z.string().nullable().optional(),
  /** The session that holds the turn: a branch's transcript begins with the turns it shares
   * with the session it was branched from (docs/playground-api.md, "Conversation branches"). */
  session_id: z.string().optional(),
  /** The versions of this turn when it has branches: the original first, then its branches
   * oldest first; the one shown is the entry whose run_id is this turn's. */
  versions: z.array(z.object({ session_id: z.string(), run_id: z.string() })).optional(),
});
export type TranscriptTurn = z.infer<typeof TranscriptTurnSchema>;

/** 202 answer of create, resume and rerun (spec 4.3 rule 1). */
export const RunAcceptedSchema = z.object({
  run_id: z.string(),
  status: RunStatusSchema,
  session_id: z.string(),
  parent_run_id: z.string().nullable(),
});
export type RunAccepted = z.infer<typeof RunAcceptedSchema>;

/** A page of a list: `next_cursor` is passed back unchanged for the next one. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}
export type Page<T> = z.infer<ReturnType<typeof pageSchema<z.ZodType<T>>>>;
export const SessionPageSchema = pageSchema(SessionSchema);
export const RunPageSchema = pageSchema(RunSummarySchema);
export const TranscriptPageSchema = pageSchema(TranscriptTurnSchema);

/** Body of every Playground error, and of the studio's unversioned paths: `{detail: {error,
 * message, ...}}` (spec 7.3); `detail` keeps the keys an error adds (active_run_id, ...). */
export const PlaygroundErrorBodySchema = z.object({
  detail: z.looseObject({ error: z.string(), message: z.string().optional() }),
});
export type PlaygroundErrorBody = z.infer<typeof PlaygroundErrorBodySchema>;

// ---- run events: GET /runs/{id}/events (spec 4.3 rule 4, 6.2), one JSON object per SSE
// `data:` line, `id:` its seq.

export const EVENT_KINDS = ['run.status', 'run.phase', 'output.delta', 'run.output', 'trace', 'diagnostic'] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

export const PhaseNameSchema = z.enum(['queue', 'prepare', 'invoke', 'complete']);
export type PhaseName = z.infer<typeof PhaseNameSchema>;
export const PhaseStateSchema = z.enum(['started', 'completed', 'failed', 'skipped']);
export type PhaseState = z.infer<typeof PhaseStateSchema>;

const base = { seq: z.number().int(), run_id: z.string(), ts: z.string() };

export const RunEventSchema = z.discriminatedUnion('kind', [
  z.object({ ...base, kind: z.literal('run.status'), status: RunStatusSchema, reason: RunReasonSchema.optional() }),
  /** A phase event carries the phase's own details next to these keys (docs/playground-api.md). */
  z.looseObject({ ...base, kind: z.literal('run.phase'), phase: PhaseNameSchema, state: PhaseStateSchema }),
  z.object({ ...base, kind: z.literal('output.delta'), text: z.string() }),
  z.object({ ...base, kind: z.literal('run.output'), parts: z.array(TaggedPartSchema) }),
  z.object({ ...base, kind: z.literal('trace'), name: z.string(), data: z.record(z.string(), z.unknown()) }),
  z.object({
    ...base,
    kind: z.literal('diagnostic'),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
    file: z.string().optional(),
    line: z.number().optional(),
    column: z.number().optional(),
    /** The manifest field the problem is in, where there is one. */
    field: z.string().optional(),
  }),
]);
export type RunEvent = z.infer<typeof RunEventSchema>;
