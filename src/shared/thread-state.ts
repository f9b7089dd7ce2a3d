// A thread's checkpoints, as the debugger reads them (docs/playground-api.md, "The state at
// every step"). Two boundaries share these shapes:
//   - studio <-> runtime child: GET {DEBUG_BASE}/threads/{thread}/checkpoints[/{id}], in the
//     management envelope (spec 2.1), behind the studio's control token only;
//   - Playground API: GET /sessions/{id}/checkpoints[/{checkpoint_id}] and
//     GET /runs/{id}/checkpoints, where each checkpoint also names its run and the detail
//     carries the step's structural diff.
// Schemas, constants and pure functions only.
import { z } from 'zod';
import { JsonDiffSchema } from './compare.ts';

/** Where the runtime mounts the debugger's endpoints. Not under /api/v1: they exist only in a
 * studio's child (a control token set), and answer only to that token. */
export const DEBUG_BASE = '/internal/debug';

/** The checkpointer's configurable key that stamps each checkpoint with the A2A task (turn)
 * that wrote it; the saver copies it into the checkpoint's metadata as `a2a_task_id`. */
export const TURN_TASK_CONFIG_KEY = 'a2a_task_id';

/** How often a turn writes a checkpoint (LangGraph durability): `exit` once per turn (the
 * deployed default, fastest), `async` after every step without waiting, `sync` after every
 * step before the next one starts. docs/performance.md gives the cost of each. */
export const CheckpointDurabilitySchema = z.enum(['exit', 'async', 'sync']);
export type CheckpointDurability = z.infer<typeof CheckpointDurabilitySchema>;
/** What the studio's child uses unless the studio's own environment sets CHECKPOINT_DURABILITY. */
export const STUDIO_CHECKPOINT_DURABILITY: CheckpointDurability = 'async';

/** A write a task made that is not yet in a checkpoint's channels. */
export const PendingWriteSchema = z.object({ task_id: z.string(), channel: z.string(), value: z.unknown() });

/** A task the graph will run next from this checkpoint (LangGraph's PregelTask). */
export const NextTaskSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** The error it failed with, when it ran and failed. */
  error: z.string().nullable(),
  /** Interrupt values it raised. */
  interrupts: z.array(z.unknown()),
  /** The namespace of its subgraph's checkpoints, when the task is a subgraph. */
  checkpoint_ns: z.string().nullable(),
});

/** One checkpoint, without its values: what a list shows. */
export const CheckpointSummarySchema = z.object({
  checkpoint_id: z.string(),
  /** '' for the top graph; `node:task_id` (joined by '|') inside a subgraph. */
  checkpoint_ns: z.string(),
  parent_checkpoint_id: z.string().nullable(),
  /** LangGraph's step: -1 for the input checkpoint, then 0, 1, ... */
  step: z.number().int(),
  /** input (a turn's input), loop (after a step), update (an edit), fork (a copy). */
  source: z.string(),
  created_at: z.string(),
  /** Nodes that run next from here; empty when the turn ended here. */
  next: z.array(z.string()),
  /** Which node wrote which channels in the step that made this checkpoint. */
  writes: z.record(z.string(), z.array(z.string())),
  /** The A2A task (one turn) that wrote it; null when unknown (written before stamping). */
  task_id: z.string().nullable(),
});
export type CheckpointSummary = z.infer<typeof CheckpointSummarySchema>;

/** One checkpoint with the graph's state: every channel's value, JSON-safe (LangChain
 * messages as `{type, content, ...}`), the pending writes and the next tasks. */
export const CheckpointDetailSchema = CheckpointSummarySchema.extend({
  values: z.record(z.string(), z.unknown()),
  /** Bytes of each channel's JSON: a client can keep a large channel closed until asked. */
  sizes: z.record(z.string(), z.number().int()),
  pending_writes: z.array(PendingWriteSchema),
  tasks: z.array(NextTaskSchema),
});
export type CheckpointDetail = z.infer<typeof CheckpointDetailSchema>;

/** The runtime's page: newest first; `next_before` is the last item's id, or null at the end. */
export const CheckpointPageSchema = z.object({ items: z.array(CheckpointSummarySchema), next_before: z.string().nullable() });
export type CheckpointPage = z.infer<typeof CheckpointPageSchema>;

/** Query of the runtime's list: `limit` (1-200, default 50), `before` (a checkpoint id) and
 * `task_id` (only the checkpoints that task wrote). */
export const CheckpointListQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.string().min(1).max(200).optional(),
  task_id: z.string().min(1).max(200).optional(),
});

/** Query of a detail: the namespace (default '', the top graph), and `parent_values=true` for
 * the parent checkpoint's values too (the Playground's diff: one read of the thread, not two). */
export const CheckpointDetailQuerySchema = z.strictObject({
  ns: z.string().max(2000).default(''),
  parent_values: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true'),
});

/** The runtime's replies, in the management envelope (spec 2.1). */
export const CheckpointPageReplySchema = z.object({ success: z.literal(true), data: CheckpointPageSchema, error: z.null() });
/** The runtime's detail, with the parent's values when asked (null for a thread's first checkpoint). */
export const RuntimeCheckpointDetailSchema = CheckpointDetailSchema.extend({ parent_values: z.record(z.string(), z.unknown()).nullable().optional() });
export type RuntimeCheckpointDetail = z.infer<typeof RuntimeCheckpointDetailSchema>;
export const CheckpointDetailReplySchema = z.object({ success: z.literal(true), data: RuntimeCheckpointDetailSchema, error: z.null() });

// ---- Playground API -----------------------------------------------------------------------

/** A checkpoint as the Playground lists it: the runtime's summary and the run that wrote it. */
export const SessionCheckpointSchema = CheckpointSummarySchema.extend({ run_id: z.string().nullable() });
export type SessionCheckpoint = z.infer<typeof SessionCheckpointSchema>;

export const SessionCheckpointPageSchema = z.object({ items: z.array(SessionCheckpointSchema), next_cursor: z.string().nullable() });
export type SessionCheckpointPage = z.infer<typeof SessionCheckpointPageSchema>;

/** The detail, with what this step changed: the diff from its parent checkpoint's values
 * (null for a thread's first checkpoint). */
export const SessionCheckpointDetailSchema = CheckpointDetailSchema.extend({ run_id: z.string().nullable(), diff: JsonDiffSchema.nullable() });
export type SessionCheckpointDetail = z.infer<typeof SessionCheckpointDetailSchema>;

/** Query of the Playground's list: `limit` (1-200, default 50) and `cursor` (next_cursor). */
export const SessionCheckpointQuerySchema = z.strictObject({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(200).optional(),
});
export const SessionCheckpointDetailQuerySchema = z.strictObject({ ns: z.string().max(2000).default('') });

// ---- Fork and re-run from a checkpoint ------------------------------------------------------

/** The reserved A2A metadata key of a turn that continues its thread from the thread's latest
 * checkpoint with no new input (a fork's run). The runtime honours it only on a request that
 * carries the studio's control credential (CONTROL_CREDENTIAL_HEADER, src/shared/breakpoints.ts),
 * and refuses it otherwise (docs/security.md, "The studio's reserved metadata"). */
export const CONTINUE_METADATA_KEY = 'svc.continue';

/** POST {DEBUG_BASE}/threads/{thread}/fork: copy one checkpoint into the new thread `thread_id`
 * and apply the edit, channel by channel, as the node that wrote the checkpoint. */
export const ForkRequestSchema = z.strictObject({
  checkpoint_id: z.string().min(1).max(200),
  checkpoint_ns: z.string().max(2000).default(''),
  thread_id: z.string().min(1).max(200),
  /** New values by channel; messages as the state endpoints give them ({type, content, ...}). */
  values: z.record(z.string(), z.unknown()).optional(),
  /** A conversation branch: the checkpoint is where a turn ended (nothing needs to run from it)
   * and the copied transcript keeps that turn whole, its answer included. */
  branch: z.boolean().optional(),
});
export type ForkRequest = z.input<typeof ForkRequestSchema>;

export const ForkResultSchema = z.object({
  thread_id: z.string(),
  /** The new thread's latest checkpoint: the copy, or the edit on top of it. */
  checkpoint_id: z.string(),
  /** Its namespace in the new thread: '' for the top graph; a fork inside a subgraph names the
   * subgraph's namespace the new run continues in (its task id is the new thread's). */
  checkpoint_ns: z.string().optional(),
  /** The node the edit was applied as (the one that wrote the checkpoint); null without an edit. */
  as_node: z.string().nullable(),
  /** The nodes that wrote the checkpoint (empty for a turn's input checkpoint). */
  written_by: z.array(z.string()),
  /** What runs when the new thread continues (inside a subgraph: its nodes, as `inner:rank`). */
  next: z.array(z.string()),
  forked_from: z.object({ thread_id: z.string(), checkpoint_id: z.string(), checkpoint_ns: z.string() }),
});
export type ForkResult = z.infer<typeof ForkResultSchema>;
export const ForkReplySchema = z.object({ success: z.literal(true), data: ForkResultSchema, error: z.null() });

/** POST /api/playground/v1/runs/{run_id}/fork: a checkpoint of the run's thread, and the edit
 * (none: "re-run from here"). */
export const ForkRunBodySchema = z.strictObject({
  checkpoint_id: z.string().min(1).max(200),
  checkpoint_ns: z.string().max(2000).default(''),
  values: z.record(z.string(), z.unknown()).optional(),
});
export type ForkRunBody = z.input<typeof ForkRunBodySchema>;

// ---- Edit the state of a paused run ----------------------------------------------------------

/** POST {DEBUG_BASE}/threads/{thread}/edit: the edit of a run paused at a breakpoint, applied to
 * the live thread (not a copy) as the node that wrote `checkpoint_id` (the paused checkpoint),
 * so the continued run goes on along that node's edges with the edited state. */
export const EditRequestSchema = z.strictObject({
  checkpoint_id: z.string().min(1).max(200),
  values: z.record(z.string(), z.unknown()),
});
export type EditRequest = z.input<typeof EditRequestSchema>;

export const EditResultSchema = z.object({
  /** The thread's checkpoint with the edit (source `update`). */
  checkpoint_id: z.string(),
  /** The node the edit was applied as (null for a turn's input checkpoint). */
  as_node: z.string().nullable(),
  /** What runs when the thread continues. */
  next: z.array(z.string()),
});
export type EditResult = z.infer<typeof EditResultSchema>;
export const EditReplySchema = z.object({ success: z.literal(true), data: EditResultSchema, error: z.null() });

/** GET {DEBUG_BASE}/state-schema and the Playground's GET /state-schema: a JSON Schema of the
 * loaded graph's state channels, the shape an edit (fork or continue) must have. `source`:
 * `zod` when the graph declares its state with zod (LangGraph's update schema), `channels` when
 * it is derived from the channels and their default values. */
export const StateSchemaSchema = z.object({
  schema: z.record(z.string(), z.unknown()),
  source: z.enum(['zod', 'channels']),
  channels: z.array(z.string()),
});
export type StateSchema = z.infer<typeof StateSchemaSchema>;
export const StateSchemaReplySchema = z.object({ success: z.literal(true), data: StateSchemaSchema, error: z.null() });
