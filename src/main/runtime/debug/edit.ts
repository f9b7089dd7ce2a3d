// Edit the state of a run paused at a breakpoint (docs/playground-api.md, "Continue with an
// edited state"): the live thread, not a copy, takes the edit with LangGraph's updateState as
// the node that wrote the paused checkpoint, so the continued run goes on along that node's
// edges (editing `intents` after `router` re-decides the route). The rules are the fork's: the
// edit is checked against the state's schema first, a checkpoint written by several nodes in
// one step cannot take one, and a reducer that refuses the value leaves the thread as it was.
import { TURN_TASK_CONFIG_KEY, type EditRequest, type EditResult } from '../../../shared/thread-state.ts';
import { InvalidEdit, revive, type ForkGraph } from './fork.ts';
import type { ThreadStateReader } from './state.ts';
import type { EditChecker } from './state-schema.ts';

export interface EditDeps {
  graph: () => ForkGraph;
  reader: ThreadStateReader;
  checker: EditChecker;
}

type Snapshot = Awaited<ReturnType<ForkGraph['getState']>> & { metadata?: Record<string, unknown>; tasks?: { interrupts?: unknown[] }[] };

export class ThreadEditor {
  constructor(private readonly d: EditDeps) {}

  async edit(threadId: string, req: EditRequest): Promise<EditResult> {
    const graph = this.d.graph();
    if (!Object.keys(req.values).length) throw new InvalidEdit('The edit names no channel.', { field: 'values' });
    const refused = this.d.checker.problems(graph, req.values);
    if (refused) throw new InvalidEdit(refused.message, refused.detail);
    const paused = await this.d.reader.detail(threadId, req.checkpoint_id, ''); // CheckpointNotFound for a wrong id
    const writers = Object.keys(paused.writes);
    if (writers.length > 1)
      throw new InvalidEdit(`Nodes ${writers.join(', ')} wrote this checkpoint together: it cannot take an edit; step on and edit the next one.`, { writers });
    const latest = (await graph.getState({ configurable: { thread_id: threadId } })) as Snapshot;
    const latestId = latest.config?.configurable?.checkpoint_id as string | undefined;
    // The thread waits at the paused checkpoint, or at an earlier edit of it.
    if (latestId !== req.checkpoint_id && latest.metadata?.source !== 'update')
      throw new InvalidEdit('The thread has moved on from this checkpoint: only the checkpoint a run is paused at takes an edit.', {
        checkpoint_id: latestId ?? null,
      });
    if (!latest.next.length) throw new InvalidEdit('Nothing would run from this checkpoint: the turn ended there.', { next: [] });
    if ((latest.tasks as { interrupts?: unknown[] }[] | undefined)?.some((t) => t.interrupts?.length))
      throw new InvalidEdit('The run is paused inside a node (a fan-out branch): its state cannot be edited there; edit it before the node.', {
        field: 'checkpoint_id',
      });
    const asNode = writers[0] ?? '__input__';
    const revived = Object.fromEntries(Object.entries(req.values).map(([k, v]) => [k, revive(v)]));
    // Stamped with the paused turn's task, like every checkpoint of the turn.
    const configurable = { thread_id: threadId, ...(paused.task_id ? { [TURN_TASK_CONFIG_KEY]: paused.task_id } : {}) };
    let written: { configurable?: Record<string, unknown> };
    try {
      written = await graph.updateState({ configurable }, revived, asNode);
    } catch (err) {
      throw new InvalidEdit(`The state cannot take this edit: ${(err as Error).message}`, { as_node: asNode });
    }
    const after = await graph.getState({ configurable: { thread_id: threadId } });
    return {
      checkpoint_id: (after.config?.configurable?.checkpoint_id as string | undefined) ?? (written.configurable?.checkpoint_id as string),
      as_node: writers[0] ?? null,
      next: [...after.next],
    };
  }
}
