// Fork and re-run from a checkpoint, as the Playground serves it (docs/playground-api.md, "Fork
// and re-run from a checkpoint"): the runtime child copies the checkpoint of the run's thread
// into a new thread and applies the edit (project code and state live only there); the studio
// makes a new session for that thread, "Fork of <title>", and a run in it that continues the
// thread from the copy (the executor sends the reserved continue key, executor/continue.ts).
// The run records where it came from. The one-active-run rule applies as for any run.
import { randomUUID } from 'node:crypto';
import type { RunAccepted, RunFork } from '../../../shared/playground.ts';
import type { ForkRunBody } from '../../../shared/thread-state.ts';
import type { RuntimeClient } from '../../studio/child/client.ts';
import { PlaygroundError, notFound } from '../errors.ts';
import { patchOf } from './edit.ts';
import { newSessionId } from '../ids.ts';
import { blobsOf } from '../parts.ts';
import type { PlaygroundService } from '../service.ts';
import type { PlaygroundStore } from '../store/store.ts';

const RUNTIME_WAIT_MS = 10_000;

export class ForkService {
  constructor(
    private readonly store: PlaygroundStore,
    private readonly service: Pick<PlaygroundService, 'assertNoActiveRun' | 'admitFirst'>,
    private readonly runtime: Pick<RuntimeClient, 'fork'>,
  ) {}

  async fork(runId: string, body: ForkRunBody & { checkpoint_ns: string }): Promise<RunAccepted> {
    const origin = this.store.getRun(runId);
    if (!origin) throw notFound('run', runId);
    if (!origin.context_id) throw new PlaygroundError('invalid_request', `run ${runId} never reached the agent: it has no thread to fork`, { run_id: runId });
    this.service.assertNoActiveRun();
    const thread = randomUUID();
    const got = await this.runtime.fork(origin.context_id, { ...body, thread_id: thread }, RUNTIME_WAIT_MS);
    if (!got.ok) {
      if (got.reason === 'refused' && got.status === 404)
        throw new PlaygroundError('not_found', `no checkpoint '${body.checkpoint_id}' in this run's thread`, { checkpoint_id: body.checkpoint_id });
      if (got.reason === 'refused') throw new PlaygroundError('invalid_request', got.message, { ...got.extra, checkpoint_id: body.checkpoint_id });
      throw new PlaygroundError(
        'runtime_unavailable',
        `the runtime could not fork the thread: ${got.reason === 'not_running' ? 'no runtime is running' : got.detail}`,
      );
    }
    const fork: RunFork = {
      run_id: origin.run_id,
      session_id: origin.session_id,
      checkpoint_id: body.checkpoint_id,
      checkpoint_ns: body.checkpoint_ns,
      node: got.value.as_node ?? got.value.written_by[0] ?? null,
      patch: patchOf(body.values),
    };
    const title = this.store.getSession(origin.session_id)?.title ?? origin.session_id;
    const now = new Date().toISOString();
    const session = this.store.insertSession(newSessionId(), `Fork of ${title}`.slice(0, 200), now);
    return this.service.admitFirst(
      {
        session_id: session.session_id,
        parent_run_id: null,
        origin: 'send',
        context_id: thread,
        task_id: null,
        // The turn it continues: the origin's input, shown as the fork's question.
        input_parts: origin.input_parts,
        metadata: origin.metadata,
        changed_files: [],
        revision: origin.revision,
        forked_from: JSON.stringify(fork),
      },
      blobsOf(origin.input_parts),
    );
  }
}
