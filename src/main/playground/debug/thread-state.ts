// The state at every step, as the Playground serves it (docs/playground-api.md, "The state at
// every step"): a session's thread is the A2A context of its runs; its checkpoints come from
// the runtime child (project code and its state live only there, RuntimeClient), each named
// with the run that wrote it, and a checkpoint's detail carries what its step changed: the
// structural diff (the compare view's differ) from its parent's values.
import type { RuntimeClient } from '../../studio/child/client.ts';
import type { SessionCheckpoint, SessionCheckpointDetail, SessionCheckpointPage, CheckpointSummary, StateSchema } from '../../../shared/thread-state.ts';
import { DEFAULT_COMPARE_OPTIONS } from '../../../shared/compare.ts';
import { diffJson } from '../compare/json-diff.ts';
import { PlaygroundError, notFound } from '../errors.ts';
import type { PlaygroundStore } from '../store/store.ts';

const RUNTIME_WAIT_MS = 10_000;
const CURSOR_PREFIX = 'ckpt:';

export function checkpointCursor(checkpointId: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${checkpointId}`).toString('base64url');
}

function decodeCheckpointCursor(cursor: string): string {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX) || text.length === CURSOR_PREFIX.length)
    throw new PlaygroundError('invalid_request', 'cursor is not one this API issued; pass next_cursor unchanged');
  return text.slice(CURSOR_PREFIX.length);
}

function unavailable(detail: string): PlaygroundError {
  return new PlaygroundError('runtime_unavailable', `the runtime could not read the thread's state: ${detail}`);
}

export class ThreadStateService {
  constructor(
    private readonly store: PlaygroundStore,
    private readonly runtime: Pick<RuntimeClient, 'checkpoints' | 'checkpoint' | 'stateSchema'>,
  ) {}

  /** The loaded graph's state schema: what an edit (fork or continue) may hold. */
  async stateSchema(): Promise<StateSchema> {
    const got = await this.runtime.stateSchema(RUNTIME_WAIT_MS);
    if (!got.ok) throw unavailable(got.reason === 'not_running' ? 'no runtime is running' : got.detail);
    return got.value;
  }

  /** The session's thread, newest checkpoint first; an empty page before its first run reached the agent. */
  async sessionPage(sessionId: string, limit: number, cursor: string | undefined): Promise<SessionCheckpointPage> {
    const thread = this.threadOf(sessionId);
    if (!thread) return { items: [], next_cursor: null };
    const before = cursor === undefined ? undefined : decodeCheckpointCursor(cursor);
    const got = await this.runtime.checkpoints(thread, { limit, before }, RUNTIME_WAIT_MS);
    if (!got.ok) throw unavailable(got.reason === 'not_running' ? 'no runtime is running' : got.detail);
    const runOf = this.runNamer(sessionId);
    return {
      items: got.value.items.map((c) => ({ ...c, run_id: runOf(c) })),
      next_cursor: got.value.next_before ? checkpointCursor(got.value.next_before) : null,
    };
  }

  /** The checkpoints one run wrote, oldest first: those stamped with its task (a resume
   * shares its parent's task: each run keeps the ones written after it was created). */
  async runCheckpoints(runId: string): Promise<SessionCheckpoint[]> {
    const run = this.store.getRun(runId);
    if (!run) throw notFound('run', runId);
    if (!run.context_id || !run.task_id) return [];
    const runOf = this.runNamer(run.session_id);
    const mine: SessionCheckpoint[] = [];
    let before: string | undefined;
    do {
      const got = await this.runtime.checkpoints(run.context_id, { limit: 200, before, taskId: run.task_id }, RUNTIME_WAIT_MS);
      if (!got.ok) throw unavailable(got.reason === 'not_running' ? 'no runtime is running' : got.detail);
      for (const c of got.value.items) if (runOf(c) === runId) mine.push({ ...c, run_id: runId });
      before = got.value.next_before ?? undefined;
    } while (before);
    return mine.reverse();
  }

  /** One checkpoint of the session's thread with its values and the diff from its parent. */
  async detail(sessionId: string, checkpointId: string, ns: string): Promise<SessionCheckpointDetail> {
    const thread = this.threadOf(sessionId);
    const missing = () => new PlaygroundError('not_found', `no checkpoint '${checkpointId}' in this session's thread`, { checkpoint_id: checkpointId });
    if (!thread) throw missing();
    // One read of the thread: the checkpoint with its parent's values (the runtime reads the
    // parent anyway, for what the step wrote).
    const got = await this.runtime.checkpoint(thread, checkpointId, ns, RUNTIME_WAIT_MS, true);
    if (!got.ok) throw got.reason === 'missing' ? missing() : unavailable(got.reason === 'not_running' ? 'no runtime is running' : got.detail);
    const { parent_values: parentValues, ...c } = got.value;
    let diff = null;
    if (!c.parent_checkpoint_id) diff = diffJson({}, c.values, DEFAULT_COMPARE_OPTIONS);
    else if (parentValues) diff = diffJson(parentValues, c.values, DEFAULT_COMPARE_OPTIONS);
    return { ...c, run_id: this.runNamer(sessionId)(c), diff };
  }

  private threadOf(sessionId: string): string | null {
    if (!this.store.getSession(sessionId)) throw notFound('session', sessionId);
    return this.store.latestContextId(sessionId);
  }

  /** The run that wrote a checkpoint: the session's run with its task id (a resume shares its
   * parent's task: the latest such run created before the checkpoint). */
  private runNamer(sessionId: string): (c: CheckpointSummary) => string | null {
    const runs = this.store.sessionTasks(sessionId);
    return (c) => {
      if (!c.task_id) return null;
      const same = runs.filter((r) => r.task_id === c.task_id);
      return (same.filter((r) => r.created_at <= c.created_at).pop() ?? same[0])?.run_id ?? null;
    };
  }
}
