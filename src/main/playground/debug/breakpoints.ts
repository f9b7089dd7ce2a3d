// Breakpoints and stepping, as the Playground serves them (docs/playground-api.md,
// "Breakpoints and stepping"). A session's breakpoints live in the studio's SQLite
// (session_breakpoints) and go to the runtime child with every run of the session under the
// reserved debug key, with the control credential (src/shared/breakpoints.ts). A run that
// reached one ended `input_required`, reason `breakpoint`; while it waits it holds the session:
// Continue and Step are resumes with no new input, Stop cancels its A2A task.
import type { Statement } from 'better-sqlite3';
import {
  controlCredentialHeaders,
  EVERY_NODE,
  pauseOf,
  type Breakpoint,
  type BreakpointAction,
  type DebugControl,
  type PausePoint,
  type SessionBreakpoint,
} from '../../../shared/breakpoints.ts';
import type { RuntimeClient } from '../../studio/child/client.ts';
import { notFound, PlaygroundError } from '../errors.ts';
import { runtimeClient } from '../executor/a2a.ts';
import type { RuntimeHandle } from '../executor/runtime.ts';
import type { PlaygroundStore, RunRecord } from '../store/store.ts';

const GRAPH_WAIT_MS = 2_000;
const READY_WAIT_MS = 10_000;

/** The reason a run paused at a breakpoint ends with (executor/lifecycle.ts). */
export const BREAKPOINT_REASON = 'breakpoint';

type Row = { node: string; point: 'before' | 'after'; created_at: string };

export class BreakpointService {
  private readonly sql: Record<'list' | 'put' | 'clearOne' | 'clearNode' | 'clearAll' | 'stop' | 'stopped' | 'lastPaused', Statement<unknown[]>>;
  /** Resume runs not invoked yet that continue a pause, with their action. */
  private readonly actions = new Map<string, { action: BreakpointAction; pause: PausePoint | null }>();
  /** New runs not invoked yet that were started in step mode (`debug: {step: true}`). */
  private readonly stepRuns = new Set<string>();

  constructor(
    private readonly store: PlaygroundStore,
    private readonly runtime: RuntimeHandle,
    private readonly client: Pick<RuntimeClient, 'graph'>,
  ) {
    const p = (sql: string) => store.db.prepare(sql);
    this.sql = {
      list: p('SELECT node, point, created_at FROM session_breakpoints WHERE session_id = ? ORDER BY created_at, node, point'),
      put: p('INSERT INTO session_breakpoints (session_id, node, point, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      clearOne: p('DELETE FROM session_breakpoints WHERE session_id = ? AND node = ? AND point = ?'),
      clearNode: p('DELETE FROM session_breakpoints WHERE session_id = ? AND node = ?'),
      clearAll: p('DELETE FROM session_breakpoints WHERE session_id = ?'),
      stop: p('INSERT INTO run_stops (run_id, stopped_at) VALUES (?, ?) ON CONFLICT DO NOTHING'),
      stopped: p('SELECT stopped_at FROM run_stops WHERE run_id = ?'),
      lastPaused: p(
        `SELECT run_id FROM runs WHERE session_id = ? AND status = 'input_required' AND reason = '${BREAKPOINT_REASON}' ORDER BY run_id DESC LIMIT 1`,
      ),
    };
  }

  /** The session's breakpoints, each saying whether the loaded graph has its node. */
  async list(sessionId: string): Promise<SessionBreakpoint[]> {
    this.session(sessionId);
    const rows = this.sql.list.all(sessionId) as Row[];
    const nodes = rows.length ? await this.graphNodes() : null;
    return rows.map((r) => ({ node: r.node, when: r.point, created_at: r.created_at, found: nodes ? found(nodes, r.node) : null }));
  }

  set(sessionId: string, bp: Breakpoint): void {
    this.session(sessionId);
    this.sql.put.run(sessionId, bp.node, bp.when, new Date().toISOString());
  }

  /** Clears one breakpoint, both of a node (no `when`), or all of the session (neither). */
  clear(sessionId: string, q: { node?: string; when?: 'before' | 'after' }): void {
    this.session(sessionId);
    if (q.node && q.when) this.sql.clearOne.run(sessionId, q.node, q.when);
    else if (q.node) this.sql.clearNode.run(sessionId, q.node);
    else if (q.when) throw new PlaygroundError('invalid_request', 'name the node of the breakpoint to clear (or neither, to clear all)');
    else this.sql.clearAll.run(sessionId);
  }

  /** The debug control a run sends to the runtime, or null (none: nothing is sent). */
  controlFor(run: RunRecord): { control: DebugControl; headers: Record<string, string> } | null {
    const breakpoints = (this.sql.list.all(run.session_id) as Row[]).map((r) => ({ node: r.node, when: r.point }));
    const noted = this.actions.get(run.run_id);
    const stepRun = this.stepRuns.delete(run.run_id);
    this.actions.delete(run.run_id);
    if (!breakpoints.length && !noted && !stepRun) return null;
    const control = {
      breakpoints,
      step: stepRun || noted?.action === 'step',
      continue: noted !== undefined,
      ...(noted?.pause ? { paused_at: noted.pause } : {}),
    };
    return { control, headers: controlCredentialHeaders(this.runtime.controlHeaders()) };
  }

  /** Where a run paused, or null for a run that is not a breakpoint pause. */
  pauseOf(run: RunRecord): PausePoint | null {
    if (run.status !== 'input_required' || run.reason !== BREAKPOINT_REASON) return null;
    for (const part of run.output_parts) if (part.kind === 'data') return pauseOf(part.data) ?? null;
    return null;
  }

  /** The pause of a run with what became of it: still `paused`, `continued` (a resume the agent
   * answered) or `stopped`; null for a run that did not pause at a breakpoint. */
  pauseState(run: RunRecord): (PausePoint & { state: 'paused' | 'continued' | 'stopped'; continued_by: string | null }) | null {
    const at = this.pauseOf(run);
    if (!at) return null;
    const answered = this.store.answeredResume(run.run_id);
    const state = this.sql.stopped.get(run.run_id) ? 'stopped' : answered ? 'continued' : 'paused';
    return { ...at, state, continued_by: answered?.run_id ?? null };
  }

  /** A run still paused at a breakpoint: not stopped, and no resume the agent answered. */
  isPaused(run: RunRecord): boolean {
    return this.pauseOf(run) !== null && !this.sql.stopped.get(run.run_id) && !this.store.answeredResume(run.run_id);
  }

  /** The session's run paused at a breakpoint, if any: it holds the session until continued or stopped. */
  pausedRun(sessionId: string): string | null {
    const id = (this.sql.lastPaused.get(sessionId) as { run_id: string } | undefined)?.run_id;
    const row = id ? this.store.getRun(id) : undefined;
    return row && this.isPaused(row) ? row.run_id : null;
  }

  /** The run continuing a pause: sent with `continue` (and `step`) when it is invoked. */
  noteAction(runId: string, action: BreakpointAction, pause: PausePoint | null): void {
    this.actions.set(runId, { action, pause });
  }

  /** A new run started in step mode: it pauses before every node (its Continue runs on). */
  noteStepRun(runId: string): void {
    this.stepRuns.add(runId);
  }

  /** Stop: the paused run's A2A task is canceled and the pause ends; the run stays as it ended. */
  async stop(run: RunRecord): Promise<void> {
    if (run.task_id) {
      const base = await this.runtime.waitReady(READY_WAIT_MS);
      if (!base) throw new PlaygroundError('runtime_unavailable', 'no runtime is running to cancel the paused task');
      const res = await runtimeClient(base, AbortSignal.timeout(READY_WAIT_MS), this.runtime.controlHeaders()).cancelTask({ id: run.task_id });
      // A task that already ended (another client ended it) leaves nothing to cancel.
      if ('error' in res && res.error.code !== -32002)
        throw new PlaygroundError('runtime_unavailable', `the runtime refused to cancel the task: ${res.error.message}`);
    }
    this.sql.stop.run(run.run_id, new Date().toISOString());
  }

  private session(id: string): void {
    if (!this.store.getSession(id)) throw notFound('session', id);
  }

  private async graphNodes(): Promise<Set<string> | null> {
    const got = await this.client.graph(GRAPH_WAIT_MS);
    if (!got.ok) return null;
    const view = got.value as { nodes?: { id?: unknown }[]; subgraphs?: { nodes?: { id?: unknown }[] }[] };
    if (!Array.isArray(view.nodes)) return null;
    // A subgraph's nodes (`inner:rank`) are drawn in `subgraphs` (src/shared/graph-view.ts).
    const inner = Array.isArray(view.subgraphs) ? view.subgraphs.flatMap((s) => (Array.isArray(s.nodes) ? s.nodes : [])) : [];
    return new Set([...view.nodes, ...inner].map((n) => String(n.id)));
  }
}

/** A fan-out branch `skills[refund]` is found when its node is. */
function found(nodes: Set<string>, node: string): boolean {
  return node === EVERY_NODE || nodes.has(node) || nodes.has(node.replace(/\[.*\]$/, ''));
}
