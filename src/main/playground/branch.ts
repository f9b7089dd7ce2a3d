// Conversation branches (docs/playground-api.md, "Conversation branches"): an earlier user turn
// of a session, edited, continues on a branch. The branch is a session of its own whose thread
// is a new thread seeded by the runtime's fork (runtime/debug/fork.ts, `branch`) with a copy of
// the checkpoint at the start of that turn (where the turn before it ended) and the
// conversation before it; the edited message then runs there as the branch's first run. The
// original session, its runs and its thread are only read.
import { randomUUID } from 'node:crypto';
import type { RunAccepted } from '../../shared/playground.ts';
import type { BranchBody } from '../../shared/playground-requests.ts';
import type { RuntimeClient } from '../studio/child/client.ts';
import { versionGroup } from './conversation.ts';
import type { ThreadStateService } from './debug/thread-state.ts';
import { PlaygroundError, notFound } from './errors.ts';
import { newSessionId } from './ids.ts';
import { inputToTagged } from './parts.ts';
import { storableMetadata, type PlaygroundService } from './service.ts';
import type { BlobStore } from './store/blobs.ts';
import type { PlaygroundStore } from './store/store.ts';

const RUNTIME_WAIT_MS = 10_000;

export class BranchService {
  constructor(
    private readonly store: PlaygroundStore,
    private readonly blobs: BlobStore,
    private readonly service: Pick<PlaygroundService, 'assertNoActiveRun' | 'admitFirst'>,
    private readonly states: Pick<ThreadStateService, 'runCheckpoints'>,
    private readonly runtime: Pick<RuntimeClient, 'fork'>,
  ) {}

  /** POST /runs/{id}/branch: 202 with the branch's first run, in the branch's new session. */
  async branch(runId: string, body: BranchBody): Promise<RunAccepted> {
    const run = this.store.getRun(runId);
    if (!run) throw notFound('run', runId);
    // A branch's edited turn is a version of the turn it edited: editing it again makes a sibling.
    const group = versionGroup(this.store, run.session_id, run.run_id);
    const turn = group.run_id === run.run_id ? run : (this.store.getRun(group.run_id) ?? run);
    if (turn.origin === 'resume')
      throw new PlaygroundError('invalid_request', `run ${runId} answers the agent's question: branch at the turn that asked it`, { run_id: runId });
    if (turn.forked_from)
      throw new PlaygroundError('invalid_request', `run ${runId} continues a fork from a checkpoint: it has no message of its own to edit`, { run_id: runId });
    this.service.assertNoActiveRun();
    const input = inputToTagged(body.parts, this.blobs);
    const thread = turn.context_id ? await this.seed(turn.run_id, turn.context_id) : null;
    const rootOf = this.store.branches.of(turn.session_id)?.root_session_id ?? turn.session_id;
    const title = this.store.getSession(rootOf)?.title ?? rootOf;
    const now = new Date().toISOString();
    const session = this.store.transaction(() => {
      const s = this.store.insertSession(newSessionId(), `Branch of ${title}`.slice(0, 200), now);
      this.store.branches.insert({
        session_id: s.session_id,
        origin_session_id: turn.session_id,
        origin_run_id: turn.run_id,
        root_session_id: rootOf,
        created_at: now,
      });
      return s;
    });
    return this.service.admitFirst(
      {
        session_id: session.session_id,
        parent_run_id: null,
        origin: 'send',
        context_id: thread,
        task_id: null,
        input_parts: input.parts,
        metadata: body.metadata !== undefined ? storableMetadata(body.metadata) : turn.metadata,
        changed_files: [],
        revision: body.revision ?? turn.revision,
      },
      input.blobs,
    );
  }

  /** A new thread seeded with the state at the start of the turn: the parent of the first
   * checkpoint the turn wrote. Null for a conversation's first turn (nothing came before it:
   * the branch starts a thread of its own, as any first message does). */
  private async seed(runId: string, threadId: string): Promise<string | null> {
    const first = (await this.states.runCheckpoints(runId)).find((c) => c.checkpoint_ns === '');
    if (!first)
      throw new PlaygroundError('invalid_request', `run ${runId} left no checkpoint to branch from (it never reached the agent's graph)`, { run_id: runId });
    if (!first.parent_checkpoint_id) return null;
    const thread = randomUUID();
    const got = await this.runtime.fork(
      threadId,
      { checkpoint_id: first.parent_checkpoint_id, checkpoint_ns: '', thread_id: thread, branch: true },
      RUNTIME_WAIT_MS,
    );
    if (got.ok) return thread;
    if (got.reason === 'refused') throw new PlaygroundError('invalid_request', got.message, { ...got.extra, run_id: runId });
    throw new PlaygroundError(
      'runtime_unavailable',
      `the runtime could not branch the thread: ${got.reason === 'not_running' ? 'no runtime is running' : got.detail}`,
    );
  }
}
