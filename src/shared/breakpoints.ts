// Breakpoints and stepping (docs/playground-api.md, "Breakpoints and stepping"): the shapes
// the renderer, the studio and its runtime child agree on. A breakpoint belongs to a session
// and names a node of the graph as the graph view names it, paused before or after it runs.
// The studio hands a run's breakpoints to the runtime under a reserved request metadata key,
// honoured only with the studio's control credential (docs/security.md, D-64); a run that
// reaches one ends its turn `input-required` with a `breakpoint` DataPart saying where.
import { z } from 'zod';

export const BREAKPOINT_WHEN = ['before', 'after'] as const;
export type BreakpointWhen = (typeof BREAKPOINT_WHEN)[number];

/** A node id as the graph view names it: `router`, a fan-out branch such as `skills[refund]`, or
 * a node inside a subgraph as `inner:rank` (the subgraph's node in the parent, then the node:
 * LangGraph's xray naming, SUBGRAPH_NODE_SEPARATOR). */
export const BreakpointNodeSchema = z
  .string()
  .min(1, 'name a node')
  .max(200)
  .regex(/^[^\s]+$/, 'a node id has no spaces');

/** Joins a subgraph's node in its parent and a node inside it: `inner:rank`. */
export const SUBGRAPH_NODE_SEPARATOR = ':';

/** A breakpoint before EVERY_NODE is step mode: the session's runs pause before every node. */
export const EVERY_NODE = '*';

export const BreakpointSchema = z.strictObject({ node: BreakpointNodeSchema, when: z.enum(BREAKPOINT_WHEN) });
export type Breakpoint = z.infer<typeof BreakpointSchema>;

/** One breakpoint of a session as the Playground lists it. `found`: whether the graph the
 * runtime has loaded has that node (null when no runtime answered); a breakpoint on a node
 * the graph no longer has is kept and listed with `found: false`. */
export const SessionBreakpointSchema = BreakpointSchema.extend({ created_at: z.string(), found: z.boolean().nullable() });
export type SessionBreakpoint = z.infer<typeof SessionBreakpointSchema>;

/** DELETE /sessions/{id}/breakpoints: one breakpoint by its node and when, or all when neither is given. */
export const ClearBreakpointQuerySchema = z.strictObject({ node: BreakpointNodeSchema.optional(), when: z.enum(BREAKPOINT_WHEN).optional() });

/** POST /runs/{id}/resume of a run paused at a breakpoint: no new input; `continue` runs on to the
 * next breakpoint (or the end), `step` pauses again before the next node. */
export const BREAKPOINT_ACTIONS = ['continue', 'step'] as const;
export type BreakpointAction = (typeof BREAKPOINT_ACTIONS)[number];
export const BreakpointResumeSchema = z.strictObject({
  breakpoint: z.enum(BREAKPOINT_ACTIONS),
  /** An edit of the paused state, new values by channel (messages as the state endpoints give
   * them): applied to the thread as the node that wrote the paused checkpoint before it runs on. */
  values: z.record(z.string(), z.unknown()).optional(),
});

/** Where a paused run stopped: the `breakpoint` DataPart of its input-required answer. */
export const PausePointSchema = z.object({
  node: z.string(),
  when: z.enum(BREAKPOINT_WHEN),
  /** The thread's checkpoint at the pause (the state panel shows it). */
  checkpoint_id: z.string().nullable(),
  /** The checkpoint's namespace: '' (or absent) for the top graph, the subgraph's inside one. */
  checkpoint_ns: z.string().optional(),
  /** The runtime's project generation the run paused on (a reload since then runs new code). */
  generation: z.number().int().optional(),
});
export type PausePoint = z.infer<typeof PausePointSchema>;

/** The key of the pause in the input-required DataPart. */
export const PAUSE_DATA_KEY = 'breakpoint';

/** The pause a DataPart of an answer carries, or null. */
export function pauseOf(data: unknown): PausePoint | null {
  if (!data || typeof data !== 'object') return null;
  const parsed = PausePointSchema.safeParse((data as Record<string, unknown>)[PAUSE_DATA_KEY]);
  return parsed.success ? parsed.data : null;
}

// ---- studio -> runtime ----------------------------------------------------------------------

/** Reserved request metadata key (params.metadata) with a run's debug control. The runtime
 * removes it before the A2A SDK sees the request, and honours it only when the request carries
 * the studio's control credential (CONTROL_CREDENTIAL_HEADER). */
export const RESERVED_DEBUG_KEY = 'svc.debug';

/** The header carrying the studio's control token (RUNTIME_CONTROL_TOKEN) on A2A requests,
 * beside whatever caller credential the request carries in Authorization. */
export const CONTROL_CREDENTIAL_HEADER = 'x-agent-studio-control';

export const DebugControlSchema = z.object({
  breakpoints: z.array(BreakpointSchema).max(500).default([]),
  /** Pause before every node (step mode, and the Step action). */
  step: z.boolean().default(false),
  /** Continue the thread from its paused checkpoint: the graph runs with no new input. */
  continue: z.boolean().default(false),
  /** With `continue`: where the run paused, so the runtime can say what a reload since changed. */
  paused_at: PausePointSchema.optional(),
});
export type DebugControl = z.infer<typeof DebugControlSchema>;

/** The control credential header for A2A requests, from the studio's control headers
 * (`authorization: Bearer <token>`, runtime-contract.ts controlHeaders); empty without a token. */
export function controlCredentialHeaders(control: Record<string, string>): Record<string, string> {
  const token = /^Bearer (.+)$/.exec(control.authorization ?? '')?.[1];
  return token ? { [CONTROL_CREDENTIAL_HEADER]: token } : {};
}
