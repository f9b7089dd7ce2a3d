// Continue with an edited state (docs/playground-api.md, "Continue with an edited state"): the
// edit of a run paused at a breakpoint goes to the runtime child, which applies it to the live
// thread as the node that wrote the paused checkpoint (project code and state live only
// there); it is checked there before anything is written, and refused with 400 naming the
// state's channels or what the state could not take. The continued run records it.
import type { RunEdit } from '../../../shared/playground.ts';
import type { PausePoint } from '../../../shared/breakpoints.ts';
import type { RuntimeClient } from '../../studio/child/client.ts';
import { PlaygroundError } from '../errors.ts';
import type { RunRecord } from '../store/store.ts';

const RUNTIME_WAIT_MS = 10_000;

/** A JSON pointer token (RFC 6901). */
export function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The edit as a JSON patch: one `replace` per edited channel. */
export function patchOf(values: Record<string, unknown> | undefined): RunEdit['patch'] {
  return Object.entries(values ?? {}).map(([channel, value]) => ({ op: 'replace' as const, path: `/${escapePointer(channel)}`, value }));
}

export class PausedStateEditor {
  constructor(private readonly runtime: Pick<RuntimeClient, 'edit'>) {}

  /** Applies the edit to the paused run's thread; what the continued run records. */
  async apply(run: RunRecord, pause: PausePoint, values: Record<string, unknown>): Promise<RunEdit> {
    if (!run.context_id || !pause.checkpoint_id)
      throw new PlaygroundError('invalid_request', `run ${run.run_id} paused with no checkpoint to edit`, { run_id: run.run_id });
    if (/\[.+\]$/.test(pause.node))
      throw new PlaygroundError('invalid_request', `run ${run.run_id} is paused at a fan-out branch (${pause.node}): its state cannot be edited there`, {
        run_id: run.run_id,
        node: pause.node,
      });
    const got = await this.runtime.edit(run.context_id, { checkpoint_id: pause.checkpoint_id, values }, RUNTIME_WAIT_MS);
    if (!got.ok) {
      if (got.reason === 'refused' && got.status === 404)
        throw new PlaygroundError('not_found', `no checkpoint '${pause.checkpoint_id}' in this run's thread`, { checkpoint_id: pause.checkpoint_id });
      if (got.reason === 'refused') throw new PlaygroundError('invalid_request', got.message, { ...got.extra, checkpoint_id: pause.checkpoint_id });
      throw new PlaygroundError(
        'runtime_unavailable',
        `the runtime could not edit the paused state: ${got.reason === 'not_running' ? 'no runtime is running' : got.detail}`,
      );
    }
    return { checkpoint_id: pause.checkpoint_id, node: got.value.as_node, edited_checkpoint_id: got.value.checkpoint_id, patch: patchOf(values) };
  }
}
